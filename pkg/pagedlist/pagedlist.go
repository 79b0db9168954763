// Package pagedlist reads every object of a resource from a cluster in
// pages, as diff, migrate and convert --check read them.
package pagedlist

import (
	"context"
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
)

// Each lists every object of ri in pages of size and calls page for each,
// in the server's order. When a continue token has expired (410), the
// list goes on with the token the server supplies, or else starts again
// (page is then called again for objects it has seen). An error from
// page stops the list and is returned.
func Each(ctx context.Context, ri dynamic.ResourceInterface, size int64, page func([]unstructured.Unstructured) error) error {
	opts := metav1.ListOptions{Limit: size}
	for {
		list, err := ri.List(ctx, opts)
		if apierrors.IsResourceExpired(err) && opts.Continue != "" {
			opts.Continue = inconsistentContinue(err)
			continue
		}
		if err != nil {
			return err
		}
		if err := page(list.Items); err != nil {
			return err
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return nil
		}
	}
}

// inconsistentContinue is the token a 410 offers to go on with a list
// from a newer snapshot ("" if none: start again).
func inconsistentContinue(err error) string {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return status.Status().ListMeta.Continue
	}
	return ""
}

// Key is an object's namespace/name ("/name" when cluster-scoped).
func Key(o *unstructured.Unstructured) string { return o.GetNamespace() + "/" + o.GetName() }
