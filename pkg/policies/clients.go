package policies

import (
	"context"
	"fmt"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/client-go/discovery"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	openapiclient "k8s.io/client-go/openapi"
	clienttesting "k8s.io/client-go/testing"
)

// clients are the in-memory clients the plugins' informers list: the
// typed one holds the policies, bindings, namespaces and params of kinds
// kube-apiserver serves; the dynamic one the params of other kinds.
func clients(set *Set, mapper meta.RESTMapper) (*fake.Clientset, *dynamicfake.FakeDynamicClient, error) {
	var typed []runtime.Object
	for _, p := range set.Validating {
		typed = append(typed, p)
	}
	for _, b := range set.ValidatingBindings {
		typed = append(typed, b)
	}
	for _, p := range set.Mutating {
		typed = append(typed, p)
	}
	for _, b := range set.MutatingBindings {
		typed = append(typed, b)
	}
	for _, ns := range set.Namespaces {
		typed = append(typed, ns)
	}
	var untyped []runtime.Object
	listKinds := map[schema.GroupVersionResource]string{}
	for _, p := range set.Params {
		gvk := p.GroupVersionKind()
		if clientgoscheme.Scheme.Recognizes(gvk) {
			obj, err := clientgoscheme.Scheme.New(gvk)
			if err != nil {
				return nil, nil, err
			}
			if err := fromUnstructured(p, obj); err != nil {
				return nil, nil, err
			}
			typed = append(typed, obj)
			continue
		}
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %q: %w", gvk.Kind, p.GetName(), err)
		}
		listKinds[mapping.Resource] = gvk.Kind + "List"
		untyped = append(untyped, p)
	}
	// Paramkinds that no object has still need a list kind to be listed
	// (as empty); the dynamic fake asks for it by resource.
	for _, p := range set.Validating {
		addListKind(listKinds, mapper, p.Spec.ParamKind)
	}
	for _, p := range set.Mutating {
		addListKind(listKinds, mapper, p.Spec.ParamKind)
	}
	kube := fake.NewSimpleClientset(typed...)
	kube.PrependReactor("get", "namespaces", namespaceNamed(kube.Tracker()))
	dynamic := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds, untyped...)
	return kube, dynamic, nil
}

func addListKind(listKinds map[schema.GroupVersionResource]string, mapper meta.RESTMapper, kind *admissionregistrationv1.ParamKind) {
	if kind == nil {
		return
	}
	gv, err := schema.ParseGroupVersion(kind.APIVersion)
	if err != nil || clientgoscheme.Scheme.Recognizes(gv.WithKind(kind.Kind)) {
		return
	}
	// A kind that does not map is the policy's configuration error, said
	// by the plugin as the server says it.
	if mapping, err := mapper.RESTMapping(gv.WithKind(kind.Kind).GroupKind(), gv.Version); err == nil {
		listKinds[mapping.Resource] = kind.Kind + "List"
	}
}

// namespaceNamed answers the matcher's read of a namespace that was not
// given (its informer has only those that were) with the namespace as
// the server creates it from a name alone: labelled with its name.
func namespaceNamed(tracker clienttesting.ObjectTracker) clienttesting.ReactionFunc {
	return func(action clienttesting.Action) (bool, runtime.Object, error) {
		get, ok := action.(clienttesting.GetAction)
		if !ok {
			return false, nil, nil
		}
		obj, err := tracker.Get(corev1.SchemeGroupVersion.WithResource("namespaces"), "", get.GetName())
		if !apierrors.IsNotFound(err) {
			return true, obj, err
		}
		return true, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name:   get.GetName(),
			Labels: map[string]string{corev1.LabelMetadataName: get.GetName()},
		}}, nil
	}
}

// withSchemas is the in-memory clientset with the OpenAPI documents the
// mutating plugin reads through its discovery.
type withSchemas struct {
	*fake.Clientset
	schemas openapiclient.Client
}

func (c *withSchemas) Discovery() discovery.DiscoveryInterfaces {
	return schemaDiscovery{DiscoveryInterfaces: c.Clientset.Discovery(), schemas: c.schemas}
}

type schemaDiscovery struct {
	discovery.DiscoveryInterfaces
	schemas openapiclient.Client
}

func (d schemaDiscovery) OpenAPIV3() openapiclient.Client { return d.schemas }

// pathsSeen tells when the paths of the OpenAPI documents were first
// read.
type pathsSeen struct {
	openapiclient.Client
	once sync.Once
	seen chan struct{}
}

func (p *pathsSeen) Paths() (map[string]openapiclient.GroupVersion, error) {
	defer p.once.Do(func() { close(p.seen) })
	if p.Client == nil {
		return map[string]openapiclient.GroupVersion{}, nil
	}
	return p.Client.Paths()
}

// noOpinion is the authorizer of the policies' authorizer library: RBAC
// is the cluster's, so every check has no opinion (not allowed).
type noOpinion struct{}

func (noOpinion) Authorize(context.Context, authorizer.Attributes) (authorizer.Decision, string, error) {
	return authorizer.DecisionNoOpinion, "authorization is not evaluated on the client", nil
}
