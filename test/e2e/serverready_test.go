package e2e

import (
	"context"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
)

// notReady are the server's answers while it has not caught up with
// what the test just created: a custom resource's CRD not yet served
// ("There can be a delay..."); under failurePolicy Fail, a policy's
// params: the param kind's informer starts when the policy is first
// read and is waited for a second only, and a param kind served by a
// CRD created moments before is unknown to the admission's REST mapper
// until its next reset (every 30 seconds). They are the test cluster's
// start, not an answer to the object: the offline checks know their
// CRDs and params before their first object.
var notReady = []string{
	"There can be a delay between when CustomResourceDefinitions are created and when they are available",
	"not yet synced to use for admission",
	"failed to find resource referenced by paramKind",
}

// createOnceReady creates o through r, again while the server answers
// notReady, for up to a minute.
func createOnceReady(ctx context.Context, r dynamic.ResourceInterface, o *unstructured.Unstructured, opts metav1.CreateOptions) (*unstructured.Unstructured, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := r.Create(ctx, o.DeepCopy(), opts)
		if err == nil || time.Now().After(deadline) || !slices.ContainsFunc(notReady, func(s string) bool { return strings.Contains(err.Error(), s) }) {
			return got, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}
