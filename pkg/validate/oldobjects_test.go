package validate

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"
)

// TestLiveObjectsListOncePerNamespace: one list per resource and
// namespace, shared by the objects in it; a resource the server cannot
// list is not listed again for another namespace.
func TestLiveObjectsListOncePerNamespace(t *testing.T) {
	gvr := schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}
	live := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "a", "namespace": "one"}}}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "CronTabList"}, live)
	var lists, failing atomic.Int32
	client.PrependReactor("list", "crontabs", func(a clienttesting.Action) (bool, runtime.Object, error) {
		lists.Add(1)
		if a.GetNamespace() == "two" || a.GetNamespace() == "three" {
			failing.Add(1)
			return true, nil, apierrors.NewTooManyRequests("storage is (re)initializing", 1)
		}
		return false, nil, nil
	})
	gvk := gvr.GroupVersion().WithKind("CronTab")
	lookup := liveObjects(client)
	ctx := context.Background()

	for _, name := range []string{"a", "b", "a"} {
		obj, err := lookup(ctx, gvk, gvr, "one", name)
		if err != nil || (obj != nil) != (name == "a") {
			t.Fatalf("one/%s: %v, %v", name, obj, err)
		}
	}
	for _, ns := range []string{"two", "three", "two"} {
		if _, err := lookup(ctx, gvk, gvr, ns, "x"); !apierrors.IsTooManyRequests(err) {
			t.Fatalf("%s: %v, want the list's error", ns, err)
		}
	}
	if got := fmt.Sprint(lists.Load(), failing.Load()); got != "2 1" {
		t.Errorf("lists made (all, failing): %s; want 2 1", got)
	}
}

// TestLiveObjectsGetWhenListForbidden: where the user may not list a
// resource, each object is read with a get (missing: a create); a get
// that is forbidden too is the error.
func TestLiveObjectsGetWhenListForbidden(t *testing.T) {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	live := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "a", "namespace": "one"}}}
	client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{gvr: "SecretList"}, live)
	var lists, gets atomic.Int32
	client.PrependReactor("list", "secrets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		lists.Add(1)
		return true, nil, apierrors.NewForbidden(gvr.GroupResource(), "", fmt.Errorf("cannot list"))
	})
	client.PrependReactor("get", "secrets", func(a clienttesting.Action) (bool, runtime.Object, error) {
		gets.Add(1)
		if a.(clienttesting.GetAction).GetName() == "secret" {
			return true, nil, apierrors.NewForbidden(gvr.GroupResource(), "secret", fmt.Errorf("cannot get"))
		}
		return false, nil, nil
	})
	lookup := liveObjects(client)
	ctx := context.Background()
	gvk := gvr.GroupVersion().WithKind("Secret")
	if obj, err := lookup(ctx, gvk, gvr, "one", "a"); err != nil || obj == nil {
		t.Errorf("a: %v, %v", obj, err)
	}
	if obj, err := lookup(ctx, gvk, gvr, "one", "b"); err != nil || obj != nil {
		t.Errorf("b: %v, %v", obj, err)
	}
	if _, err := lookup(ctx, gvk, gvr, "one", "secret"); !apierrors.IsForbidden(err) {
		t.Errorf("secret: %v, want the get's error", err)
	}
	if got := fmt.Sprint(lists.Load(), gets.Load()); got != "1 3" {
		t.Errorf("lists, gets: %s; want 1 3", got)
	}
}
