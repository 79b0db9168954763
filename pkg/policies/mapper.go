package policies

import (
	"errors"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource finds the resource of a kind at a version: found false when
// nothing serves it.
type Resource func(gvk schema.GroupVersionKind) (gvr schema.GroupVersionResource, namespaced, found bool, err error)

// Kinds finds the kinds of a resource (none when nothing serves it).
type Kinds func(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error)

// NewMapper is the RESTMapper of the plugins (what they map paramKinds
// with) and of type checking (which maps the resources of rules to
// kinds): kind to resource through resource, resource to kinds through
// kinds (nil: none), which is all they ask.
func NewMapper(resource Resource, kinds Kinds) meta.RESTMapper {
	return mapper{resource: resource, kinds: kinds}
}

type mapper struct {
	resource Resource
	kinds    Kinds
}

var errKindOnly = errors.New("policies map kinds and resources only")

func (m mapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	for _, v := range versions {
		gvk := gk.WithVersion(v)
		gvr, namespaced, found, err := m.resource(gvk)
		if err != nil {
			return nil, err
		}
		if !found {
			continue
		}
		scope := meta.RESTScopeRoot
		if namespaced {
			scope = meta.RESTScopeNamespace
		}
		return &meta.RESTMapping{Resource: gvr, GroupVersionKind: gvk, Scope: scope}, nil
	}
	return nil, &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: versions}
}

func (m mapper) RESTMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	mapping, err := m.RESTMapping(gk, versions...)
	if err != nil {
		return nil, err
	}
	return []*meta.RESTMapping{mapping}, nil
}

func (m mapper) KindFor(gvr schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	kinds, err := m.KindsFor(gvr)
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return kinds[0], nil
}

func (m mapper) KindsFor(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	if m.kinds == nil {
		return nil, errKindOnly
	}
	kinds, err := m.kinds(gvr)
	if err == nil && len(kinds) == 0 {
		err = &meta.NoResourceMatchError{PartialResource: gvr}
	}
	return kinds, err
}

func (mapper) ResourceFor(schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return schema.GroupVersionResource{}, errKindOnly
}

func (mapper) ResourcesFor(schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return nil, errKindOnly
}

func (mapper) ResourceSingularizer(string) (string, error) { return "", errKindOnly }
