package policies

import (
	"errors"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Resource finds the resource of a kind at a version: found false when
// nothing serves it.
type Resource func(gvk schema.GroupVersionKind) (gvr schema.GroupVersionResource, namespaced, found bool, err error)

// NewMapper is the RESTMapper of the plugins (what they map paramKinds
// with) over resource: kind to resource only, which is all they ask.
func NewMapper(resource Resource) meta.RESTMapper { return mapper(resource) }

type mapper Resource

var errKindOnly = errors.New("policies map kinds to resources only")

func (m mapper) RESTMapping(gk schema.GroupKind, versions ...string) (*meta.RESTMapping, error) {
	for _, v := range versions {
		gvk := gk.WithVersion(v)
		gvr, namespaced, found, err := m(gvk)
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

func (mapper) KindFor(schema.GroupVersionResource) (schema.GroupVersionKind, error) {
	return schema.GroupVersionKind{}, errKindOnly
}

func (mapper) KindsFor(schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
	return nil, errKindOnly
}

func (mapper) ResourceFor(schema.GroupVersionResource) (schema.GroupVersionResource, error) {
	return schema.GroupVersionResource{}, errKindOnly
}

func (mapper) ResourcesFor(schema.GroupVersionResource) ([]schema.GroupVersionResource, error) {
	return nil, errKindOnly
}

func (mapper) ResourceSingularizer(string) (string, error) { return "", errKindOnly }
