package validate

import (
	"context"
	"errors"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/openapi"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// StartAdmission starts the admission policies of set, sending requests
// as u: kinds map to resources through the built-in kinds and cat, and
// the mutating policies patch custom resources with the schemas of cat's
// CRDs. madeUp (when set) is told of each namespace made up from its
// name alone for a policy that reads namespaces (see policies.World).
func (e *Environment) StartAdmission(ctx context.Context, cat *catalog.Catalog, set *policies.Set, u user.Info, madeUp func(string)) (*policies.Chain, error) {
	world := policies.World{
		Mapper:   policies.NewMapper(resourceOf(ctx, e.Options.BuiltIn, cat), kindsOf(ctx, e.Options.BuiltIn, cat)),
		Features: utilfeature.DefaultFeatureGate,
		User:     u,
		MadeUp:   madeUp,
	}
	if len(set.Mutating) > 0 {
		crds, err := cat.ListWithInput(ctx)
		if err != nil {
			return nil, err
		}
		world.Schemas = openapi.Union(builtin.OpenAPI(), openapi.NewClient(catalog.Definitions(crds)))
	}
	return policies.Start(set, world)
}

// resourceOf finds the resource of a kind: built in, or defined by a CRD
// of cat that serves the version.
func resourceOf(ctx context.Context, kinds *builtin.Kinds, cat *catalog.Catalog) policies.Resource {
	return func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, bool, bool, error) {
		kind, err := kinds.Lookup(gvk)
		var notServed *builtin.NotServedError
		switch {
		case errors.As(err, &notServed):
			return schema.GroupVersionResource{}, false, false, nil
		case err != nil && kind == nil && !isUnchecked(err):
			return schema.GroupVersionResource{}, false, false, err
		case kind != nil:
			return kind.Resource, kind.Namespaced(), true, nil
		}
		if cat == nil {
			return schema.GroupVersionResource{}, false, false, nil
		}
		crd, err := cat.ForKind(ctx, gvk.GroupKind())
		if err != nil || crd == nil || !apihelpers.HasServedCRDVersion(crd.CustomResourceDefinition, gvk.Version) {
			return schema.GroupVersionResource{}, false, false, err
		}
		def := crd.CustomResourceDefinition
		return gvk.GroupVersion().WithResource(def.Spec.Names.Plural), def.Spec.Scope == apiextensionsv1.NamespaceScoped, true, nil
	}
}

// kindsOf finds the kind of a resource: built in, or defined by a CRD of
// cat that serves the version.
func kindsOf(ctx context.Context, kinds *builtin.Kinds, cat *catalog.Catalog) policies.Kinds {
	return func(gvr schema.GroupVersionResource) ([]schema.GroupVersionKind, error) {
		if gvk, ok := kinds.KindFor(gvr); ok {
			return []schema.GroupVersionKind{gvk}, nil
		}
		if cat == nil {
			return nil, nil
		}
		crd, err := cat.ForResource(ctx, gvr.GroupResource())
		if err != nil || crd == nil || !apihelpers.HasServedCRDVersion(crd.CustomResourceDefinition, gvr.Version) {
			return nil, err
		}
		return []schema.GroupVersionKind{gvr.GroupVersion().WithKind(crd.Spec.Names.Kind)}, nil
	}
}

func isUnchecked(err error) bool {
	var unchecked *builtin.UncheckedError
	return errors.As(err, &unchecked)
}
