package explain

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/openapi"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubectlexplain "k8s.io/kubectl/pkg/explain"
	explainv2 "k8s.io/kubectl/pkg/explain/v2"
	kubectlopenapi "k8s.io/kubectl/pkg/util/openapi"
)

// Kubectl's output formats: plaintext renders the OpenAPI v3 document,
// plaintext-openapiv2 the v2 one, each as kubectl explain renders them.
const (
	Plaintext          = "plaintext"
	PlaintextOpenAPIV2 = "plaintext-openapiv2"
)

// Target is what explain's argument names: a CRD, its resource and
// version, and the field path in its schema.
type Target struct {
	CRD    *apiextensionsv1.CustomResourceDefinition
	GVR    schema.GroupVersionResource
	Fields []string
}

// Resolve finds the target of explain's argument TYPE[.FIELD...] as
// kubectl explain finds it: the resource part with kubectl's rules
// against the catalog's names, at apiVersion's group and version when it
// is given; the catalog then reads its CRD (and warns of a deprecated
// version).
func Resolve(ctx context.Context, cat *catalog.Catalog, arg, apiVersion string) (Target, error) {
	mapper, err := cat.RESTMapper()
	if err != nil {
		return Target{}, err
	}
	split := kubectlexplain.SplitAndParseResourceRequestWithMatchingPrefix
	if apiVersion != "" {
		split = kubectlexplain.SplitAndParseResourceRequest
	}
	gvr, fields, err := split(arg, mapper)
	if meta.IsNoMatchError(err) {
		// kubectl's words, and the close names get suggests too.
		resource, _, _ := strings.Cut(arg, ".")
		return Target{}, cat.UnknownType(resource)
	}
	if err != nil {
		return Target{}, err
	}
	if apiVersion != "" {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return Target{}, err
		}
		gvr.Group, gvr.Version = gv.Group, gv.Version
	}
	r, err := cat.One(ctx, gvr.Resource+"."+gvr.Version+"."+gvr.Group)
	if err != nil {
		return Target{}, err
	}
	return Target{CRD: r.CRD.CustomResourceDefinition, GVR: gvr, Fields: fields}, nil
}

// PrintKubectl writes what kubectl explain prints for the target, in one
// of kubectl's formats, from the OpenAPI documents the server would
// publish for the CRD (built on the client): the same code renders them.
// A field that does not exist is kubectl's error with the closest fields
// after it, and nothing printed before it.
func PrintKubectl(w io.Writer, t Target, format string, recursive bool, maxDepth int) error {
	var out bytes.Buffer
	if err := printKubectl(&out, t, format, recursive, maxDepth); err != nil {
		return withCloseFields(err, t)
	}
	_, err := w.Write(out.Bytes())
	return err
}

// withCloseFields adds to kubectl's error for a field that does not exist
// the fields of its parent with names close to it.
func withCloseFields(err error, t Target) error {
	root, serr := Schema(t.CRD, t.GVR.Version)
	if serr != nil {
		return err
	}
	for i := range t.Fields {
		if _, ferr := Field(root, t.Fields[:i+1]); ferr == nil {
			continue
		}
		parent, perr := Field(root, t.Fields[:i])
		if perr != nil {
			return err
		}
		var names []string
		for _, c := range Children(parent) {
			if c.Name != "" {
				names = append(names, c.Name)
			}
		}
		if close := catalog.Closest(t.Fields[i], names); len(close) > 0 {
			return fmt.Errorf("%w\nDid you mean %s?", err, strings.Join(close, " or "))
		}
		return err
	}
	return err
}

func printKubectl(w io.Writer, t Target, format string, recursive bool, maxDepth int) error {
	crds := []*apiextensionsv1.CustomResourceDefinition{t.CRD}
	if format != PlaintextOpenAPIV2 {
		return explainv2.PrintModelDescription(t.Fields, w, openapi.NewClient(crds), t.GVR, recursive, maxDepth, Plaintext)
	}
	doc, err := openapi.V2(crds)
	if err != nil {
		return err
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	parsed, err := openapiv2.ParseDocument(data)
	if err != nil {
		return err
	}
	resources, err := kubectlopenapi.NewOpenAPIData(parsed)
	if err != nil {
		return err
	}
	gvk := t.GVR.GroupVersion().WithKind(t.CRD.Spec.Names.Kind)
	s := resources.LookupResource(gvk)
	if s == nil {
		return fmt.Errorf("couldn't find resource for %q", gvk)
	}
	return kubectlexplain.PrintModelDescription(t.Fields, w, s, gvk, recursive, maxDepth)
}
