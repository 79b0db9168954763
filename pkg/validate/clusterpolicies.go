package validate

import (
	"context"
	"errors"
	"fmt"

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
// (list): its policies and bindings (the mutating ones where the cluster
// serves them), its namespaces, and the objects of every paramKind. A
// list the user may not make is an error naming the resource.
func (e *Environment) ClusterPolicies(ctx context.Context) (*policies.Set, error) {
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
	for _, r := range []struct {
		resource string
		optional bool // served from 1.36 (MutatingAdmissionPolicy GA)
	}{
		{"validatingadmissionpolicies", false},
		{"validatingadmissionpolicybindings", false},
		{"mutatingadmissionpolicies", true},
		{"mutatingadmissionpolicybindings", true},
		{"namespaces", false},
	} {
		gvr := v1.WithResource(r.resource)
		if r.resource == "namespaces" {
			gvr = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
		}
		if err := listInto(ctx, client, gvr, r.optional, set); err != nil {
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
	find := resourceOf(ctx, e.Options.BuiltIn, e.Catalog)
	for gvk := range kinds {
		gvr, _, found, err := find(gvk)
		if err != nil {
			return nil, err
		}
		if !found {
			continue // the policy's configuration error, said by the plugin
		}
		if err := listInto(ctx, client, gvr, false, set); err != nil {
			return nil, err
		}
	}
	return set, nil
}

func paramKindOf(kind *admissionregistrationv1.ParamKind, into map[schema.GroupVersionKind]bool) {
	if kind == nil {
		return
	}
	if gv, err := schema.ParseGroupVersion(kind.APIVersion); err == nil {
		into[gv.WithKind(kind.Kind)] = true
	}
}

// listInto adds every object of a resource to set; optional: a resource
// the cluster does not serve has none.
func listInto(ctx context.Context, client dynamic.Interface, gvr schema.GroupVersionResource, optional bool, set *policies.Set) error {
	list, err := client.Resource(gvr).List(ctx, metav1.ListOptions{})
	switch {
	case optional && apierrors.IsNotFound(err):
		return nil
	case apierrors.IsForbidden(err):
		return fmt.Errorf("cannot list %s of the cluster, which admission reads: %w (--no-policies checks without them)", gvr.GroupResource(), err)
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
