package policies

import (
	"context"
	"fmt"
	"sync"

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
//
// Each param is kept under the resource the mapper gives its kind, as
// the server stores it: not under the resource client-go's fakes would
// guess from the kind (Gatekeeper's constraint CRDs, for one, name their
// plural as the lower-case kind, with no "s"). A custom resource is also
// kept at each other version a paramKind names it at, as a CRD without a
// conversion webhook serves it there (apiVersion changed, nothing else).
func clients(set *Set, mapper meta.RESTMapper, madeUp func(string)) (*fake.Clientset, *dynamicfake.FakeDynamicClient, error) {
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
	kube := fake.NewSimpleClientset(typed...)
	kube.PrependReactor("get", "namespaces", namespaceNamed(kube.Tracker(), madeUp))
	// Paramkinds need a list kind to be listed, with objects or without
	// (the dynamic fake asks for it by resource).
	listKinds := map[schema.GroupVersionResource]string{}
	paramKinds := map[schema.GroupKind][]string{}
	for _, k := range set.paramKinds() {
		gv, err := schema.ParseGroupVersion(k.APIVersion)
		if err != nil || clientgoscheme.Scheme.Recognizes(gv.WithKind(k.Kind)) {
			continue
		}
		gk := gv.WithKind(k.Kind).GroupKind()
		paramKinds[gk] = append(paramKinds[gk], gv.Version)
		// A kind that does not map is the policy's configuration error,
		// said by the plugin as the server says it.
		if mapping, err := mapper.RESTMapping(gk, gv.Version); err == nil {
			listKinds[mapping.Resource] = k.Kind + "List"
		}
	}
	type param struct {
		gvr schema.GroupVersionResource
		obj runtime.Object
		ns  string
	}
	var typedParams, untypedParams []param
	for _, p := range set.Params {
		gvk := p.GroupVersionKind()
		mapping, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %q: %w", gvk.Kind, p.GetName(), err)
		}
		if clientgoscheme.Scheme.Recognizes(gvk) {
			obj, err := clientgoscheme.Scheme.New(gvk)
			if err != nil {
				return nil, nil, err
			}
			if err := fromUnstructured(p, obj); err != nil {
				return nil, nil, err
			}
			typedParams = append(typedParams, param{mapping.Resource, obj, p.GetNamespace()})
			continue
		}
		listKinds[mapping.Resource] = gvk.Kind + "List"
		untypedParams = append(untypedParams, param{mapping.Resource, p, p.GetNamespace()})
		for _, v := range paramKinds[gvk.GroupKind()] {
			if v == gvk.Version {
				continue
			}
			other, err := mapper.RESTMapping(gvk.GroupKind(), v)
			if err != nil {
				continue
			}
			at := p.DeepCopy()
			at.SetAPIVersion(other.GroupVersionKind.GroupVersion().String())
			untypedParams = append(untypedParams, param{other.Resource, at, p.GetNamespace()})
		}
	}
	for _, p := range typedParams {
		if err := kube.Tracker().Create(p.gvr, p.obj, p.ns); err != nil {
			return nil, nil, err
		}
	}
	dynamic := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), listKinds)
	for _, p := range untypedParams {
		if err := dynamic.Tracker().Create(p.gvr, p.obj, p.ns); err != nil {
			return nil, nil, err
		}
	}
	return kube, dynamic, nil
}

// namespaceNamed answers the matcher's read of a namespace that was not
// given (its informer has only those that were) with the namespace as
// the server creates it from a name alone: labelled with its name. It
// tells madeUp (when set) of each such answer.
func namespaceNamed(tracker clienttesting.ObjectTracker, madeUp func(string)) clienttesting.ReactionFunc {
	return func(action clienttesting.Action) (bool, runtime.Object, error) {
		get, ok := action.(clienttesting.GetAction)
		if !ok {
			return false, nil, nil
		}
		obj, err := tracker.Get(corev1.SchemeGroupVersion.WithResource("namespaces"), "", get.GetName())
		if !apierrors.IsNotFound(err) {
			return true, obj, err
		}
		if madeUp != nil {
			madeUp(get.GetName())
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
