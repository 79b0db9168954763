package printers

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/jsonpath"
)

// LocalServer answers, from objects held in memory, the reads kubectl's
// get makes of an API server: get and list of custom resources, with
// namespaces, label selectors and field selectors (metadata.name,
// metadata.namespace and the version's selectableFields). It is how
// kubectl crd get works on files, without a cluster. Objects without a
// namespace are found in whichever namespace is asked for, as if created
// there. Objects of another version of the same CRD are served as the
// asked version, as a CRD without a conversion webhook serves them.
type LocalServer struct {
	crds    map[schema.GroupResource]*apiextensionsv1.CustomResourceDefinition
	objects map[schema.GroupKind][]*unstructured.Unstructured
}

// NewLocalServer serves objs, typed by crds.
func NewLocalServer(crds []*apiextensionsv1.CustomResourceDefinition, objs []*unstructured.Unstructured) *LocalServer {
	s := &LocalServer{
		crds:    map[schema.GroupResource]*apiextensionsv1.CustomResourceDefinition{},
		objects: map[schema.GroupKind][]*unstructured.Unstructured{},
	}
	for _, crd := range crds {
		s.crds[schema.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural}] = crd
	}
	for _, o := range objs {
		gk := o.GroupVersionKind().GroupKind()
		s.objects[gk] = append(s.objects[gk], o)
	}
	return s
}

// RoundTrip implements http.RoundTripper.
func (s *LocalServer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	if req.Method != http.MethodGet {
		return status(req, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
			fmt.Sprintf("%s is not supported without a cluster", req.Method)), nil
	}
	target, ok := parsePath(req.URL.Path)
	crd := s.crds[target.gvr.GroupResource()]
	if !ok || crd == nil || target.subresource != "" {
		return status(req, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource"), nil
	}
	q := req.URL.Query()
	if w := q.Get("watch"); w == "true" || w == "1" {
		return status(req, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
			"watching is not possible without a cluster"), nil
	}
	items, err := s.find(crd, target, q.Get("labelSelector"), q.Get("fieldSelector"))
	if err != nil {
		return status(req, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error()), nil
	}
	var resp *http.Response
	if target.name != "" {
		if len(items) == 0 {
			return status(req, http.StatusNotFound, metav1.StatusReasonNotFound,
				fmt.Sprintf("%s %q not found", target.gvr.GroupResource(), target.name)), nil
		}
		resp, err = jsonResponse(req, http.StatusOK, items[0].Object)
	} else {
		resp, err = jsonResponse(req, http.StatusOK, listOf(crd, target.gvr, items))
	}
	if err == nil {
		addDeprecationWarning(resp, crd, target.gvr.Version)
	}
	return resp, err
}

// addDeprecationWarning adds the warning the server sends with every
// response for a deprecated version.
func addDeprecationWarning(resp *http.Response, crd *apiextensionsv1.CustomResourceDefinition, version string) {
	for i := range crd.Spec.Versions {
		if v := &crd.Spec.Versions[i]; v.Name == version && v.Deprecated {
			resp.Header.Add("Warning", fmt.Sprintf("299 - %s", strconv.Quote(catalog.DeprecationWarning(crd, v))))
		}
	}
}

func listOf(crd *apiextensionsv1.CustomResourceDefinition, gvr schema.GroupVersionResource, items []*unstructured.Unstructured) map[string]any {
	list := map[string]any{
		"apiVersion": gvr.GroupVersion().String(),
		"kind":       crd.Spec.Names.ListKind,
		"metadata":   map[string]any{"resourceVersion": ""},
	}
	objs := make([]any, len(items))
	for i, it := range items {
		objs[i] = it.Object
	}
	list["items"] = objs
	return list
}

func (s *LocalServer) find(crd *apiextensionsv1.CustomResourceDefinition, t requestTarget, labelSel, fieldSel string) ([]*unstructured.Unstructured, error) {
	ls, err := labels.Parse(labelSel)
	if err != nil {
		return nil, err
	}
	fs, err := fields.ParseSelector(fieldSel)
	if err != nil {
		return nil, err
	}
	selectable := map[string]*jsonpath.JSONPath{}
	for _, v := range crd.Spec.Versions {
		if v.Name != t.gvr.Version {
			continue
		}
		for _, sf := range v.SelectableFields {
			jp := jsonpath.New(sf.JSONPath)
			if err := jp.Parse("{" + sf.JSONPath + "}"); err == nil {
				jp.AllowMissingKeys(true)
				selectable[strings.TrimPrefix(sf.JSONPath, ".")] = jp
			}
		}
	}
	namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
	var out []*unstructured.Unstructured
	for _, o := range s.objects[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] {
		ns := o.GetNamespace()
		if namespaced && t.namespace != "" && ns != "" && ns != t.namespace {
			continue
		}
		if t.name != "" && o.GetName() != t.name {
			continue
		}
		o = o.DeepCopy()
		o.SetAPIVersion(t.gvr.GroupVersion().String())
		if !namespaced {
			o.SetNamespace("")
		} else if ns == "" && t.namespace != "" {
			o.SetNamespace(t.namespace)
		}
		if !ls.Matches(labels.Set(o.GetLabels())) {
			continue
		}
		ok, err := matchFields(fs, o, selectable)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, o)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].GetNamespace() != out[j].GetNamespace() {
			return out[i].GetNamespace() < out[j].GetNamespace()
		}
		return out[i].GetName() < out[j].GetName()
	})
	return out, nil
}

// matchFields evaluates a field selector as the server does for custom
// resources: metadata.name, metadata.namespace and selectable fields only.
func matchFields(sel fields.Selector, o *unstructured.Unstructured, selectable map[string]*jsonpath.JSONPath) (bool, error) {
	set := fields.Set{"metadata.name": o.GetName(), "metadata.namespace": o.GetNamespace()}
	for path, jp := range selectable {
		results, err := jp.FindResults(o.Object)
		if err == nil && len(results) > 0 && len(results[0]) > 0 {
			set[path] = fmt.Sprint(results[0][0].Interface())
		}
	}
	for _, r := range sel.Requirements() {
		if _, ok := set[r.Field]; !ok {
			return false, fmt.Errorf("field label not supported: %s", r.Field)
		}
	}
	return sel.Matches(set), nil
}

func jsonResponse(req *http.Request, code int, v any) (*http.Response, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &http.Response{
		StatusCode:    code,
		Status:        strconv.Itoa(code) + " " + http.StatusText(code),
		Header:        http.Header{"Content-Type": []string{"application/json"}},
		Body:          io.NopCloser(strings.NewReader(string(body))),
		ContentLength: int64(len(body)),
		Request:       req,
		Proto:         "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
	}, nil
}

func status(req *http.Request, code int, reason metav1.StatusReason, msg string) *http.Response {
	resp, _ := jsonResponse(req, code, &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Message: msg, Reason: reason, Code: int32(code),
	})
	return resp
}
