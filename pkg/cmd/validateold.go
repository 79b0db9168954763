package cmd

import (
	"context"
	"errors"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/internal/memo"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// objectKey names an object the way an update finds it.
type objectKey struct {
	group, kind, namespace, name string
}

// oldLookup says where the objects an input updates come from: --old
// files, else the cluster when one is asked, else nowhere (every object is
// a create). namespace is where objects without one go.
func (o *ValidateOptions) oldLookup(namespace string) (validate.OldLookup, error) {
	if len(o.Old) > 0 {
		return oldFromFiles(o.Old, namespace)
	}
	if o.f.Offline() {
		return nil, nil
	}
	config, err := o.f.RESTConfig()
	if errors.Is(err, errNoCluster) {
		return nil, nil // nothing can exist in no cluster
	}
	if err != nil {
		return failingLookup(err), nil
	}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return liveObjects(client), nil
}

// failingLookup answers every question about old objects with err: the
// cluster that would answer cannot be asked.
func failingLookup(err error) validate.OldLookup {
	return func(context.Context, *apiextensionsv1.CustomResourceDefinition, schema.GroupVersionKind, string, string) (map[string]any, error) {
		return nil, err
	}
}

func oldFromFiles(paths []string, namespace string) (validate.OldLookup, error) {
	docs, err := manifest.ReadPaths(paths, true, nil)
	if err != nil {
		return nil, err
	}
	index := map[objectKey]map[string]any{}
	for i := range docs {
		d := &docs[i]
		obj, err := d.TakeObject()
		if err != nil {
			return nil, &manifest.Error{File: d.File, Line: d.Line, Column: d.Column, Msg: err.Error()}
		}
		u := &unstructured.Unstructured{Object: obj}
		gvk := u.GroupVersionKind()
		index[objectKey{gvk.Group, gvk.Kind, u.GetNamespace(), u.GetName()}] = u.Object
	}
	return func(_ context.Context, crd *apiextensionsv1.CustomResourceDefinition, gvk schema.GroupVersionKind, ns, name string) (map[string]any, error) {
		if old := index[objectKey{gvk.Group, gvk.Kind, ns, name}]; old != nil {
			return old, nil
		}
		if ns == namespace {
			// An old object written without its namespace.
			return index[objectKey{gvk.Group, gvk.Kind, "", name}], nil
		}
		return nil, nil
	}, nil
}

// liveObjects finds objects in the cluster: one list per resource version
// and namespace, shared by every object of the input.
func liveObjects(client dynamic.Interface) validate.OldLookup {
	type listKey struct {
		gvr       schema.GroupVersionResource
		namespace string
	}
	var lists memo.Map[listKey, map[string]map[string]any]
	// A resource the server cannot list (after client-go's retries, which
	// can take seconds) is not asked for again in another namespace.
	var failed sync.Map // schema.GroupVersionResource -> error
	return func(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, gvk schema.GroupVersionKind, ns, name string) (map[string]any, error) {
		k := listKey{gvk.GroupVersion().WithResource(crd.Spec.Names.Plural), ns}
		byName, err := lists.Get(k, func() (map[string]map[string]any, error) {
			if err, ok := failed.Load(k.gvr); ok {
				return nil, err.(error)
			}
			list, err := client.Resource(k.gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
			if apierrors.IsNotFound(err) {
				return nil, nil // the CRD is in the input, not yet in the cluster
			}
			if err != nil {
				failed.Store(k.gvr, err)
				return nil, err
			}
			byName := map[string]map[string]any{}
			for _, item := range list.Items {
				byName[item.GetName()] = item.Object
			}
			return byName, nil
		})
		return byName[name], err
	}
}
