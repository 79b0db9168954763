package catalog

import (
	"context"
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// KindsInGroup are the kinds CRDs define in a group (the input's and the
// source's), sorted; none when no CRD here is of that group. Over a
// cluster it lists the CRDs; over files it reads their outlines.
func (c *Catalog) KindsInGroup(ctx context.Context, group string) ([]string, error) {
	return c.namesInGroup(ctx, group, func(n apiextensionsv1.CustomResourceDefinitionNames) string { return n.Kind })
}

// ResourcesInGroup are the resources (plurals) CRDs define in a group,
// sorted, found as KindsInGroup finds kinds.
func (c *Catalog) ResourcesInGroup(ctx context.Context, group string) ([]string, error) {
	return c.namesInGroup(ctx, group, func(n apiextensionsv1.CustomResourceDefinitionNames) string { return n.Plural })
}

func (c *Catalog) namesInGroup(ctx context.Context, group string, name func(apiextensionsv1.CustomResourceDefinitionNames) string) ([]string, error) {
	var out []string
	for gk, crd := range c.input {
		if gk.Group == group {
			out = append(out, name(crd.Spec.Names))
		}
	}
	if group != "" && c.source != nil {
		crds, err := c.source.Outlines(ctx)
		if err != nil {
			return nil, err
		}
		for _, crd := range crds {
			if crd.Spec.Group == group {
				out = append(out, name(crd.Spec.Names))
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// Serves tells whether the source serves a kind at a version, built in or
// custom, as its discovery says (looked up again once with fresh discovery
// when a cached one says no).
func (c *Catalog) Serves(gvk schema.GroupVersionKind) (bool, error) {
	if err := c.needSource(); err != nil {
		return false, err
	}
	err := c.refreshingStale(func() error {
		_, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		return err
	})
	if meta.IsNoMatchError(err) {
		return false, nil
	}
	return err == nil, err
}
