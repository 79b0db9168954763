// Package localapi answers, from objects read from files, the reads that
// kubectl's get makes of an API server. It is how kubectl crd get works
// without a cluster:
//
//	files (-f) -> objects, as the server would store them on create
//	(pruned, defaulted, status dropped where the status subresource is on)
//	-> Server, an http.RoundTripper that answers get and list of them
//	-> pkg/tabletransport, which turns the plain lists into the Tables the
//	server would send -> kubectl's own get command, which prints them.
//
// Discovery comes from the --crds files (pkg/catalog). The Server serves
// namespaces, label selectors and field selectors (metadata.name,
// metadata.namespace and the version's selectableFields, with the
// server's own field sets and errors). Objects without a namespace are
// found in whichever namespace is asked for, as if created there. Each
// object is held at its own version; one asked for at another version of
// its CRD is converted as the server converts it (pkg/convert: None, or
// the CRD's conversion webhook).
package localapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/convert"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/storage"
)

// Server serves objects held in memory, typed by their CRDs.
type Server struct {
	crds       map[schema.GroupResource]*apiextensionsv1.CustomResourceDefinition
	converters map[string]*convert.Converter // by CRD name
	objects    map[schema.GroupKind][]*unstructured.Unstructured
}

// NewServer serves objs as the server would have stored them on create:
// each object of one of crds is pruned and defaulted (objs are changed).
func NewServer(crds []*apiextensionsv1.CustomResourceDefinition, objs []*unstructured.Unstructured) (*Server, error) {
	s := &Server{
		crds:       map[schema.GroupResource]*apiextensionsv1.CustomResourceDefinition{},
		converters: map[string]*convert.Converter{},
		objects:    map[schema.GroupKind][]*unstructured.Unstructured{},
	}
	byKind := map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition{}
	for _, crd := range crds {
		c, err := convert.New(crd, convert.Webhook{})
		if err != nil {
			return nil, err
		}
		s.converters[crd.Name] = c
		s.crds[schema.GroupResource{Group: crd.Spec.Group, Resource: crd.Spec.Names.Plural}] = crd
		byKind[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = crd
	}
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if crd := byKind[gvk.GroupKind()]; crd != nil {
			if err := validate.AsCreated(crd, gvk.Version, o.Object); err != nil {
				return nil, err
			}
			// What create sets that depends on neither the clock nor the
			// server's storage: a custom resource's first generation
			// (its strategy sets 1, whatever the file says).
			o.SetGeneration(1)
		}
		s.objects[gvk.GroupKind()] = append(s.objects[gvk.GroupKind()], o)
	}
	return s, nil
}

// RoundTrip implements http.RoundTripper.
func (s *Server) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	if req.Method != http.MethodGet {
		return status(req, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
			fmt.Sprintf("%s is not supported without a cluster", req.Method)), nil
	}
	factory := &genericapirequest.RequestInfoFactory{APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api")}
	info, err := factory.NewRequestInfo(req)
	var crd *apiextensionsv1.CustomResourceDefinition
	if err == nil && info.IsResourceRequest {
		crd = s.crds[schema.GroupResource{Group: info.APIGroup, Resource: info.Resource}]
	}
	if crd == nil || info.Subresource != "" {
		return status(req, http.StatusNotFound, metav1.StatusReasonNotFound, "the server could not find the requested resource"), nil
	}
	if info.Verb == "watch" {
		return status(req, http.StatusMethodNotAllowed, metav1.StatusReasonMethodNotAllowed,
			"watching is not possible without a cluster"), nil
	}
	gvr := schema.GroupVersionResource{Group: info.APIGroup, Version: info.APIVersion, Resource: info.Resource}
	q := req.URL.Query()
	items, err := s.find(crd, gvr.Version, info.Namespace, info.Name, q.Get("labelSelector"), q.Get("fieldSelector"))
	var failed *conversionError
	switch {
	case errors.As(err, &failed):
		return status(req, http.StatusInternalServerError, metav1.StatusReasonInternalError, "Internal error occurred: "+failed.Error()), nil
	case err != nil:
		return status(req, http.StatusBadRequest, metav1.StatusReasonBadRequest, err.Error()), nil
	}
	var resp *http.Response
	if info.Name != "" {
		if len(items) == 0 {
			return status(req, http.StatusNotFound, metav1.StatusReasonNotFound,
				fmt.Sprintf("%s %q not found", gvr.GroupResource(), info.Name)), nil
		}
		resp, err = jsonResponse(req, http.StatusOK, items[0].Object)
	} else {
		resp, err = jsonResponse(req, http.StatusOK, listOf(crd, gvr, items))
	}
	if err == nil {
		addDeprecationWarning(resp, crd, gvr.Version)
	}
	return resp, err
}

// addDeprecationWarning adds the warning the server sends with every
// response for a deprecated version.
func addDeprecationWarning(resp *http.Response, crd *apiextensionsv1.CustomResourceDefinition, version string) {
	if v := catalog.VersionNamed(crd, version); v != nil && v.Deprecated {
		resp.Header.Add("Warning", fmt.Sprintf("299 - %s", strconv.Quote(catalog.DeprecationWarning(crd, v))))
	}
}

func listOf(crd *apiextensionsv1.CustomResourceDefinition, gvr schema.GroupVersionResource, items []*unstructured.Unstructured) map[string]any {
	objs := make([]any, len(items))
	for i, it := range items {
		objs[i] = it.Object
	}
	return map[string]any{
		"apiVersion": gvr.GroupVersion().String(),
		"kind":       crd.Spec.Names.ListKind,
		"metadata":   map[string]any{"resourceVersion": ""},
		"items":      objs,
	}
}

// find returns the objects of a CRD version in a namespace ("": all) with
// a name (""; any) that match the selectors, as the server filters them,
// sorted as the server lists them.
func (s *Server) find(crd *apiextensionsv1.CustomResourceDefinition, version, namespace, name, labelSel, fieldSel string) ([]*unstructured.Unstructured, error) {
	converter := s.converters[crd.Name]
	predicate, err := selection(converter, crd, version, labelSel, fieldSel)
	if err != nil {
		return nil, err
	}
	namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
	var out []*unstructured.Unstructured
	for _, o := range s.objects[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] {
		ns := o.GetNamespace()
		if namespaced && namespace != "" && ns != "" && ns != namespace {
			continue
		}
		if name != "" && o.GetName() != name {
			continue
		}
		if o.GroupVersionKind().Version == version {
			o = o.DeepCopy()
		} else if o, err = converter.Hop(o, version); err != nil {
			return nil, &conversionError{err}
		}
		if !namespaced {
			o.SetNamespace("")
		} else if ns == "" && namespace != "" {
			o.SetNamespace(namespace)
		}
		ok, err := predicate.Matches(o)
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

// conversionError is an object the server could not convert to the
// version asked for: it fails the request (500), as on a server.
type conversionError struct{ error }

func (e *conversionError) Unwrap() error { return e.error }

// selection is the server's filter for a list of a CRD version: the
// field labels its converter supports, and its strategy's field sets.
func selection(converter *convert.Converter, crd *apiextensionsv1.CustomResourceDefinition, version, labelSel, fieldSel string) (storage.SelectionPredicate, error) {
	ls, err := labels.Parse(labelSel)
	if err != nil {
		return storage.SelectionPredicate{}, err
	}
	fs, err := fields.ParseSelector(fieldSel)
	if err != nil {
		return storage.SelectionPredicate{}, err
	}
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind}
	for _, r := range fs.Requirements() {
		if _, _, err := converter.Convertor().ConvertFieldLabel(gvk, r.Field, r.Value); err != nil {
			return storage.SelectionPredicate{}, err
		}
	}
	var selectable []apiextensionsv1.SelectableField
	if v := catalog.VersionNamed(crd, version); v != nil {
		selectable = v.SelectableFields
	}
	strategy := customresource.NewStrategy(crdserverscheme.NewUnstructuredObjectTyper(),
		crd.Spec.Scope == apiextensionsv1.NamespaceScoped, gvk, nil, nil, nil, nil, nil, selectable)
	return strategy.MatchCustomResourceDefinitionStorage(ls, fs), nil
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
