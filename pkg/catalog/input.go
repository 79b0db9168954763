package catalog

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// InputCRD is a CRD of the user's input, with its document (for
// positions in messages).
type InputCRD struct {
	*CRD
	Doc *manifest.Document
}

// Split sorts an input's documents into its CRDs, decoded, and its other
// documents (objects, and documents that could not be read), each in
// input order. A CRD that does not decode is left out and the first such
// is returned as the error, naming its place; the rest is still split,
// for callers that report such a CRD with the other documents.
func Split(docs []manifest.Document) (crds []InputCRD, objects []*manifest.Document, err error) {
	var at []int // the CRDs' documents
	for i := range docs {
		d := &docs[i]
		if d.Err != nil || !IsCRD(d.TypeMeta()) {
			objects = append(objects, d)
			continue
		}
		at = append(at, i)
	}
	// A CRD's decoding (to the internal type too) takes milliseconds, and
	// a chart or a repository holds dozens: they are decoded on every core.
	decoded := make([]*CRD, len(at))
	errs := make([]error, len(at))
	parallel.Each(len(at), 1, func(k int) { decoded[k], errs[k] = DecodeCRD(&docs[at[k]]) })
	for k, i := range at {
		if errs[k] != nil {
			if err == nil {
				err = errs[k]
			}
			continue
		}
		crds = append(crds, InputCRD{CRD: decoded[k], Doc: &docs[i]})
	}
	return crds, objects, err
}

// Named are the CRDs the TYPE arguments name, each once and in argument
// order, or every CRD when there are none.
func (c *Catalog) Named(ctx context.Context, types []string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	if len(types) == 0 {
		list, err := c.List(ctx)
		if err != nil {
			return nil, err
		}
		return Definitions(list), nil
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	seen := map[string]bool{}
	for _, t := range types {
		res, err := c.Resolve(ctx, t)
		if err != nil {
			return nil, err
		}
		for _, r := range res {
			if r.CRD == nil {
				return nil, &UnreadableError{Type: t}
			}
			if !seen[r.CRD.Name] {
				seen[r.CRD.Name] = true
				crds = append(crds, r.CRD.CustomResourceDefinition)
			}
		}
	}
	return crds, nil
}

// CRDNames are the names (plural.group) of the CRDs the TYPE arguments
// name, each once and in argument order; unlike Named, it does not need
// to read the CRDs.
func (c *Catalog) CRDNames(ctx context.Context, types []string) ([]string, error) {
	var names []string
	for _, t := range types {
		res, err := c.Resolve(ctx, t)
		if err != nil {
			return nil, err
		}
		for _, r := range res {
			if name := r.Mapping.Resource.GroupResource().String(); !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	return names, nil
}

// One resolves a TYPE argument that must name exactly one custom
// resource type, and returns it with its CRD.
func (c *Catalog) One(ctx context.Context, typ string) (Resource, error) {
	res, err := c.Resolve(ctx, typ)
	if err != nil {
		return Resource{}, err
	}
	if len(res) != 1 {
		return Resource{}, fmt.Errorf("%q names %d types: name one", typ, len(res))
	}
	if res[0].CRD == nil {
		return Resource{}, &UnreadableError{Type: typ}
	}
	return res[0], nil
}

// UnreadableError is the answer for a type whose CRD the user may not
// read.
type UnreadableError struct{ Type string }

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("cannot read the CustomResourceDefinition of %q", e.Type)
}

// NotServed says that a CRD does not serve the version an object is at,
// naming where the CRD was read.
func NotServed(crd *CRD, version string) string {
	served := ServedVersions(crd.CustomResourceDefinition)
	// The server has no match for a version it does not serve, whether
	// the CRD lists it or not: said as it says it, with what there is.
	msg := fmt.Sprintf("no matches for kind %q in version %q", crd.Spec.Names.Kind, crd.Spec.Group+"/"+version)
	if VersionNamed(crd.CustomResourceDefinition, version) != nil {
		msg += fmt.Sprintf(": version %s of %s (%s) is not served", version, crd.Name, crd.Origin)
	} else {
		msg += fmt.Sprintf(": %s (%s) has no version %s", crd.Name, crd.Origin, version)
	}
	if len(served) > 0 {
		msg += "; it serves " + strings.Join(served, ", ")
	}
	return msg
}

// ServedVersions are the names of the versions a CRD serves, in its order.
func ServedVersions(crd *apiextensionsv1.CustomResourceDefinition) []string {
	var served []string
	for _, v := range crd.Spec.Versions {
		if v.Served {
			served = append(served, v.Name)
		}
	}
	return served
}
