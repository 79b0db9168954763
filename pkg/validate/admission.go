package validate

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/openapi"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// ReadPolicies reads admission configuration from files (validate
// --policies): policies and bindings, namespaces, and params (every
// other object). Each object of a kind kube-apiserver serves is taken as
// the server would store it on create (defaulted; a namespace labelled
// with its name), and one the server would refuse, or of a version the
// Kubernetes version answered as does not serve, is an error at its file
// and line.
func (e *Environment) ReadPolicies(ctx context.Context, paths []string, src manifest.Sources) (*policies.Set, error) {
	docs, err := manifest.ReadPaths(paths, true, src)
	if err != nil {
		return nil, err
	}
	set := &policies.Set{}
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			return nil, d.Err
		}
		obj, err := e.stored(ctx, d)
		if err == nil {
			err = e.served(ctx, obj)
		}
		if err == nil && typeChecked(obj.GroupVersionKind()) {
			warnings, _ := TypeWarnings(ctx, obj.Object, e.Options.BuiltIn, e.Catalog)
			for _, w := range warnings {
				line, column := d.Position(placeOf(w.FieldRef))
				set.Warnings = append(set.Warnings, fmt.Sprintf("%s:%d:%d: %s: %s", d.File, line, column, w.FieldRef, w.Warning))
			}
		}
		if err == nil {
			err = set.Add(obj)
		}
		if err != nil {
			return nil, &manifest.Error{File: d.File, Line: d.Line, Column: d.Column, Msg: err.Error()}
		}
	}
	set.Warnings = append(set.Warnings, set.Unbound()...)
	return set, nil
}

// served checks that the kind of a param is served: built in, or defined
// by a CRD the catalog has.
func (e *Environment) served(ctx context.Context, obj *unstructured.Unstructured) error {
	gvk := obj.GroupVersionKind()
	if policies.IsPolicyKind(gvk.GroupKind()) || gvk.GroupKind() == (schema.GroupKind{Kind: "Namespace"}) {
		return nil
	}
	_, _, found, err := resourceOf(ctx, e.Options.BuiltIn, e.Catalog)(gvk)
	if err == nil && !found {
		err = fmt.Errorf("no matches for kind %q in version %q: a param's kind is served by the cluster (give its CRD with --crds)", gvk.Kind, gvk.GroupVersion())
	}
	return err
}

// stored is the object of d as the server would store it on create: as it
// is when its kind is not built in.
func (e *Environment) stored(ctx context.Context, d *manifest.Document) (*unstructured.Unstructured, error) {
	obj, err := d.TakeObject()
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: obj}
	gvk := u.GroupVersionKind()
	kind, err := e.Options.BuiltIn.Lookup(gvk)
	switch {
	case err != nil && policies.IsPolicyKind(gvk.GroupKind()):
		if e.Options.KubernetesVersion != nil {
			err = fmt.Errorf("%w (Kubernetes %s does not serve it)", err, e.Options.KubernetesVersion)
		}
		return nil, err
	case kind == nil:
		return u, nil
	}
	res := kind.Create(ctx, d.JSON, "", true, nil)
	if res.Err == nil {
		return &unstructured.Unstructured{Object: res.Object}, nil
	}
	causes := Result{Err: res.Err}.Causes()
	msgs := make([]string, len(causes))
	for i, c := range causes {
		msgs[i] = c.Message
		if c.Field != "" && !strings.HasPrefix(c.Message, c.Field) {
			msgs[i] = c.Field + ": " + c.Message
		}
	}
	return nil, fmt.Errorf("%s %q cannot be created: %s", gvk.Kind, u.GetName(), strings.Join(msgs, "; "))
}

// StartAdmission starts the admission policies of set, sending requests
// as u: kinds map to resources through the built-in kinds and cat, and
// the mutating policies patch custom resources with the schemas of cat's
// CRDs.
func (e *Environment) StartAdmission(ctx context.Context, cat *catalog.Catalog, set *policies.Set, u user.Info) (*policies.Chain, error) {
	world := policies.World{
		Mapper:   policies.NewMapper(resourceOf(ctx, e.Options.BuiltIn, cat), kindsOf(ctx, e.Options.BuiltIn, cat)),
		Features: utilfeature.DefaultFeatureGate,
		User:     u,
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
