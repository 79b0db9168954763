package validate

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// ErrNoClusterPolicies is the answer of ClusterPolicies without a cluster.
var ErrNoClusterPolicies = errors.New("there is no cluster to read admission policies from")

// ClusterPolicies reads the cluster's admission configuration, read-only
// (list): its policies and bindings, its namespaces, and the objects of
// every paramKind (found with cat's CRDs). A kind the cluster does not
// serve has none (a server without admissionregistration.k8s.io, or one
// too old for MutatingAdmissionPolicy). A list the user may not make is
// an *UnreadableError.
func (e *Environment) ClusterPolicies(ctx context.Context, cat *catalog.Catalog) (*policies.Set, error) {
	if e.cluster.Err != nil {
		return nil, e.cluster.Err
	}
	if e.cluster.Config == nil {
		return nil, ErrNoClusterPolicies
	}
	client, err := dynamic.NewForConfig(e.cluster.Config)
	if err != nil {
		return nil, err
	}
	set := &policies.Set{}
	v1 := admissionregistrationv1.SchemeGroupVersion
	for _, gvr := range []schema.GroupVersionResource{
		v1.WithResource("validatingadmissionpolicies"),
		v1.WithResource("validatingadmissionpolicybindings"),
		v1.WithResource("mutatingadmissionpolicies"),
		v1.WithResource("mutatingadmissionpolicybindings"),
		{Version: "v1", Resource: "namespaces"},
	} {
		if err := listInto(ctx, client, gvr, set); err != nil {
			return nil, err
		}
	}
	kinds := map[schema.GroupVersionKind]bool{}
	for _, p := range set.Validating {
		paramKindOf(p.Spec.ParamKind, kinds)
	}
	for _, p := range set.Mutating {
		paramKindOf(p.Spec.ParamKind, kinds)
	}
	find := resourceOf(ctx, e.Options.BuiltIn, cat)
	for _, gvk := range slices.SortedFunc(maps.Keys(kinds), func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) }) {
		gvr, _, found, err := find(gvk)
		if err != nil {
			return nil, err
		}
		if !found {
			continue // the policy's configuration error, said by the plugin
		}
		if err := listInto(ctx, client, gvr, set); err != nil {
			return nil, err
		}
	}
	return set, nil
}

// UnreadableError is a list of what admission reads that the cluster
// refuses the user.
type UnreadableError struct {
	Resource schema.GroupResource
	Err      error
}

func (e *UnreadableError) Error() string {
	return fmt.Sprintf("cannot list %s of the cluster, which admission reads: %v", e.Resource, e.Err)
}

func (e *UnreadableError) Unwrap() error { return e.Err }

func paramKindOf(kind *admissionregistrationv1.ParamKind, into map[schema.GroupVersionKind]bool) {
	if kind == nil {
		return
	}
	if gv, err := schema.ParseGroupVersion(kind.APIVersion); err == nil {
		into[gv.WithKind(kind.Kind)] = true
	}
}

// listInto adds every object of a resource to set: none when the
// cluster does not serve the resource.
func listInto(ctx context.Context, client dynamic.Interface, gvr schema.GroupVersionResource, set *policies.Set) error {
	list, err := client.Resource(gvr).List(ctx, metav1.ListOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return nil
	case apierrors.IsForbidden(err):
		return &UnreadableError{Resource: gvr.GroupResource(), Err: err}
	case err != nil:
		return fmt.Errorf("listing %s: %w", gvr.GroupResource(), err)
	}
	for i := range list.Items {
		item := &list.Items[i]
		if item.GetAPIVersion() == "" {
			item.SetAPIVersion(gvr.GroupVersion().String())
		}
		if err := set.Add(&unstructured.Unstructured{Object: item.Object}); err != nil {
			return err
		}
	}
	return nil
}
