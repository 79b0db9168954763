package migrate

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
)

// outcome is what became of one object's write.
type outcome int

const (
	rewritten outcome = iota
	accepted
	unchanged
	gone
	failed
)

// attempts bounds how often one object's write is tried.
const attempts = 8

// rewrite sends an object back unchanged: a conflict (someone else wrote
// it) reads it again and retries, a server that cannot take the write now
// (429, 5xx, timeouts) is retried after the wait it asks for (or a
// growing one), a refusal is the object's failure.
func (m *Migrator) rewrite(ctx context.Context, ri dynamic.NamespaceableResourceInterface, obj *unstructured.Unstructured, dry bool) (outcome, Failure) {
	client := dynamic.ResourceInterface(ri)
	if ns := obj.GetNamespace(); ns != "" {
		client = ri.Namespace(ns)
	}
	failure := func(err error) Failure {
		return Failure{Namespace: obj.GetNamespace(), Name: obj.GetName(), Message: err.Error()}
	}
	opts := metav1.UpdateOptions{}
	if dry {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	delay := m.retryDelay
	if delay == 0 {
		delay = 200 * time.Millisecond
	}
	var err error
	for range attempts {
		var got *unstructured.Unstructured
		got, err = client.Update(ctx, obj, opts)
		switch {
		case err == nil && dry:
			return accepted, Failure{}
		case err == nil && got.GetResourceVersion() == obj.GetResourceVersion():
			return unchanged, Failure{}
		case err == nil:
			return rewritten, Failure{}
		case apierrors.IsNotFound(err):
			return gone, Failure{}
		case apierrors.IsConflict(err):
			fresh, gerr := client.Get(ctx, obj.GetName(), metav1.GetOptions{})
			if apierrors.IsNotFound(gerr) {
				return gone, Failure{}
			}
			if gerr != nil {
				return failed, failure(gerr)
			}
			obj = fresh
			continue
		case retryable(err):
			wait := delay
			if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
				wait = time.Duration(s) * time.Second
			}
			select {
			case <-ctx.Done():
				return failed, failure(ctx.Err())
			case <-time.After(wait):
			}
			delay *= 2
			continue
		}
		return failed, failure(err)
	}
	return failed, failure(fmt.Errorf("gave up after %d attempts: %w", attempts, err))
}

func retryable(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsUnexpectedServerError(err)
}
