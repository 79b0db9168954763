package catalog

import (
	"context"
	"maps"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// List returns every CRD of the source.
func (c *Catalog) List(ctx context.Context) ([]*CRD, error) {
	if err := c.needSource(); err != nil {
		return nil, err
	}
	return c.source.List(ctx)
}

// ListWithInput returns the input's CRDs and the source's (none when
// there is no source), the input's where both define a kind: every CRD an
// object of the run may meet.
func (c *Catalog) ListWithInput(ctx context.Context) ([]*CRD, error) {
	var out []*CRD
	if c.source != nil || c.sourceErr != nil {
		listed, err := c.List(ctx)
		if err != nil {
			return nil, err
		}
		for _, crd := range listed {
			if c.input[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] == nil {
				out = append(out, crd)
			}
		}
	}
	// The input's in name order, the same in every run.
	input := slices.SortedFunc(maps.Values(c.input), func(a, b *CRD) int { return strings.Compare(a.Name, b.Name) })
	return append(out, input...), nil
}

// ListWhere returns the CRDs of the source keep says yes to (see
// Source.ListWhere): what a command that needs a few CRDs picked by
// their names pays, instead of decoding every CRD of a directory.
func (c *Catalog) ListWhere(ctx context.Context, keep func(*apiextensionsv1.CustomResourceDefinition) bool) ([]*CRD, error) {
	if err := c.needSource(); err != nil {
		return nil, err
	}
	return c.source.ListWhere(ctx, keep)
}

// Outlines returns the outline of every CRD of the source (see
// Source.Outlines); they are shared, not to be changed.
func (c *Catalog) Outlines(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	if err := c.needSource(); err != nil {
		return nil, err
	}
	return c.source.Outlines(ctx)
}

// Definitions returns the CustomResourceDefinitions of crds.
func Definitions(crds []*CRD) []*apiextensionsv1.CustomResourceDefinition {
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(crds))
	for i, c := range crds {
		out[i] = c.CustomResourceDefinition
	}
	return out
}
