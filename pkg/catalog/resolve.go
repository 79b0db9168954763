package catalog

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
)

// Resource is a TYPE argument resolved to one served version of a CRD.
type Resource struct {
	// CRD is nil when the user may not read it (the server said 403).
	CRD *CRD
	// Mapping is the resource, kind, version and scope kubectl's RESTMapper
	// gives for the argument.
	Mapping *meta.RESTMapping
}

// Version returns the CRD's definition of the resolved version (nil when
// the CRD could not be read).
func (r Resource) Version() *apiextensionsv1.CustomResourceDefinitionVersion {
	if r.CRD == nil {
		return nil
	}
	return VersionNamed(r.CRD.CustomResourceDefinition, r.Mapping.GroupVersionKind.Version)
}

// VersionNamed returns a CRD's version of that name, nil when it has none.
func VersionNamed(crd *apiextensionsv1.CustomResourceDefinition, name string) *apiextensionsv1.CustomResourceDefinitionVersion {
	for i := range crd.Spec.Versions {
		if crd.Spec.Versions[i].Name == name {
			return &crd.Spec.Versions[i]
		}
	}
	return nil
}

// Resolve resolves one TYPE argument: a comma-separated list of plurals,
// singulars, kinds, short names, plural.group, plural.version.group,
// kind.group, kind.version.group or categories. Categories expand to the
// custom resources in them. The result is in argument order, without
// duplicates. A CRD missing from a cached discovery, or no longer serving
// the version it gave, is looked up again once with fresh discovery.
func (c *Catalog) Resolve(ctx context.Context, arg string) ([]Resource, error) {
	if err := c.needSource(); err != nil {
		return nil, err
	}
	var res []Resource
	err := c.refreshingStale(func() (err error) {
		res, err = c.resolve(ctx, arg)
		return err
	})
	return res, err
}

// Category tells whether a TYPE argument names a category (all, or one a
// CRD declares) in any of its comma-separated parts.
func (c *Catalog) Category(arg string) bool {
	if c.categories == nil {
		return false
	}
	for _, part := range strings.Split(arg, ",") {
		if _, ok := c.categories.Expand(part); ok || part == "all" {
			return true
		}
	}
	return false
}

// notCustom is the error for a type the server serves without a CRD.
type notCustom struct{ msg string }

func (e *notCustom) Error() string { return e.msg }

// notServed is the error for a version discovery gave that the CRD does
// not serve (a version dropped since discovery was cached).
type notServed struct{ msg string }

func (e *notServed) Error() string { return e.msg }

func isNoResourceType(err error) bool {
	var u *UnknownTypeError
	return errors.As(err, &u)
}

// item is one resource a TYPE argument names.
type item struct {
	name         string
	fromCategory bool
}

func (c *Catalog) resolve(ctx context.Context, arg string) ([]Resource, error) {
	var items []item
	for _, part := range strings.Split(arg, ",") {
		if part == "" {
			continue
		}
		if grs, ok := c.categories.Expand(part); ok {
			for _, gr := range grs {
				items = append(items, item{name: gr.String(), fromCategory: true})
			}
			continue
		}
		if part == "all" {
			// kubectl's "all" always exists (built-in types are in it);
			// here it may hold no custom resource.
			continue
		}
		items = append(items, item{name: part})
	}
	if len(items) == 0 && strings.Trim(arg, ",") == "" {
		return nil, fmt.Errorf("resource type %q names no type", arg)
	}

	var listed map[string]*CRD // CRDs by name, listed once for categories
	seen := map[schema.GroupVersionKind]bool{}
	var out []Resource
	for _, it := range items {
		mapping, err := c.mappingFor(it.name)
		if err != nil {
			return nil, err
		}
		if seen[mapping.GroupVersionKind] {
			continue
		}
		seen[mapping.GroupVersionKind] = true
		name := mapping.Resource.GroupResource().String()

		var crd *CRD
		if it.fromCategory {
			// A category may hold built-in resources too: they are not ours.
			if listed == nil {
				if listed, err = c.crdsByName(ctx, items); err != nil {
					return nil, err
				}
			}
			if crd = listed[name]; crd == nil {
				continue
			}
		} else {
			if mapping.Resource.Group != "" {
				crd, err = c.source.Get(ctx, name)
			}
			if apierrors.IsForbidden(err) {
				// The type exists but its CRD may not be read: the caller
				// decides whether it can do without (get asks the server).
				klog.V(2).InfoS("Cannot read the CustomResourceDefinition", "name", name, "err", err)
				out = append(out, Resource{Mapping: mapping})
				continue
			}
			if mapping.Resource.Group == "" || apierrors.IsNotFound(err) {
				return nil, &notCustom{fmt.Sprintf("%q (%s) is not a custom resource: no CustomResourceDefinition defines it", it.name, name)}
			}
			if err != nil {
				return nil, err
			}
		}
		if !apihelpers.HasServedCRDVersion(crd.CustomResourceDefinition, mapping.GroupVersionKind.Version) {
			return nil, &notServed{fmt.Sprintf("CustomResourceDefinition %q does not serve version %q", crd.Name, mapping.GroupVersionKind.Version)}
		}
		r := Resource{CRD: crd, Mapping: mapping}
		if v := r.Version(); v.Deprecated {
			c.warn(DeprecationWarning(crd.CustomResourceDefinition, v))
		}
		out = append(out, r)
	}
	return out, nil
}

// crdsByName returns the CRDs of the items that came from a category, by
// name; a category may hold built-in resources, which have none.
func (c *Catalog) crdsByName(ctx context.Context, items []item) (map[string]*CRD, error) {
	names := map[string]bool{}
	for _, it := range items {
		if it.fromCategory {
			names[it.name] = true
		}
	}
	crds, err := c.source.ListWhere(ctx, func(crd *apiextensionsv1.CustomResourceDefinition) bool { return names[crd.Name] })
	if err != nil {
		return nil, err
	}
	m := make(map[string]*CRD, len(crds))
	for _, crd := range crds {
		m[crd.Name] = crd
	}
	return m, nil
}

// mappingFor maps one resource or kind argument as kubectl's resource
// builder does: first as a resource (plural.version.group, then
// plural.group), then as a kind (Kind.version.group, then Kind.group).
func (c *Catalog) mappingFor(arg string) (*meta.RESTMapping, error) {
	fullySpecifiedGVR, groupResource := schema.ParseResourceArg(arg)
	gvk := schema.GroupVersionKind{}
	if fullySpecifiedGVR != nil {
		gvk, _ = c.mapper.KindFor(*fullySpecifiedGVR)
	}
	if gvk.Empty() {
		gvk, _ = c.mapper.KindFor(groupResource.WithVersion(""))
	}
	if !gvk.Empty() {
		return c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}

	fullySpecifiedGVK, groupKind := schema.ParseKindArg(arg)
	if fullySpecifiedGVK == nil {
		k := groupKind.WithVersion("")
		fullySpecifiedGVK = &k
	}
	if !fullySpecifiedGVK.Empty() {
		if mapping, err := c.mapper.RESTMapping(fullySpecifiedGVK.GroupKind(), fullySpecifiedGVK.Version); err == nil {
			return mapping, nil
		}
	}
	mapping, err := c.mapper.RESTMapping(groupKind)
	if err == nil {
		return mapping, nil
	}
	if !meta.IsNoMatchError(err) {
		return nil, err
	}
	msg := fmt.Sprintf("the server doesn't have a resource type %q", groupResource.Resource)
	if groupResource.Group != "" {
		msg = fmt.Sprintf("the server doesn't have a resource type %q in group %q", groupResource.Resource, groupResource.Group)
	}
	return nil, &UnknownTypeError{Msg: msg, Suggestions: c.suggest(arg)}
}
