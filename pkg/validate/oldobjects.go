package validate

import (
	"context"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/internal/memo"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// objectKey names an object the way an update finds it.
type objectKey struct {
	group, kind, namespace, name string
}

// OldCRD finds the CRD a CRD document would update (nil: none).
type OldCRD = func(ctx context.Context, name string) (*apiextensionsv1.CustomResourceDefinition, error)

// liveLookups finds the objects and CRDs an input updates in the cluster.
func liveLookups(config *rest.Config) (OldLookup, OldCRD, error) {
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, nil, err
	}
	crds, err := apiextensionsclient.NewForConfig(config)
	if err != nil {
		return nil, nil, err
	}
	return liveObjects(client), liveCRDs(crds.CustomResourceDefinitions()), nil
}

// liveCRDs reads the CRD a document would update from the cluster.
func liveCRDs(client apiextensionsclient.CustomResourceDefinitionInterface) OldCRD {
	return func(ctx context.Context, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
		crd, err := client.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		return crd, err
	}
}

// oldFromFiles indexes the objects and CRDs of the --old files. A CRD
// there without status is taken as the server keeps it once it has
// created it and established it: its storage version stored, its names
// accepted.
func oldFromFiles(paths []string, src manifest.Sources, namespace string) (OldLookup, OldCRD, error) {
	docs, err := manifest.ReadPaths(paths, true, src)
	if err != nil {
		return nil, nil, err
	}
	index := map[objectKey]map[string]any{}
	crds := map[string]*apiextensionsv1.CustomResourceDefinition{}
	for i := range docs {
		d := &docs[i]
		if catalog.IsCRD(d.TypeMeta()) {
			crd, err := catalog.DecodeCRD(d)
			if err != nil {
				return nil, nil, err
			}
			crds[crd.Name] = Established(crd.CustomResourceDefinition)
			continue
		}
		obj, err := d.TakeObject()
		if err != nil {
			return nil, nil, &manifest.Error{File: d.File, Line: d.Line, Column: d.Column, Msg: err.Error()}
		}
		u := &unstructured.Unstructured{Object: obj}
		gvk := u.GroupVersionKind()
		index[objectKey{gvk.Group, gvk.Kind, u.GetNamespace(), u.GetName()}] = u.Object
	}
	objects := func(_ context.Context, gvk schema.GroupVersionKind, _ schema.GroupVersionResource, ns, name string) (map[string]any, error) {
		if old := index[objectKey{gvk.Group, gvk.Kind, ns, name}]; old != nil {
			return old, nil
		}
		if ns == namespace {
			// An old object written without its namespace.
			return index[objectKey{gvk.Group, gvk.Kind, "", name}], nil
		}
		return nil, nil
	}
	return objects, func(_ context.Context, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
		return crds[name], nil
	}, nil
}

// Established gives a CRD without a cluster's status (written by hand,
// or from a chart) the status the server gives it once it has created and
// established it.
func Established(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	if apihelpers.FindCRDCondition(crd, apiextensionsv1.Established) != nil {
		return crd
	}
	crd = crd.DeepCopy()
	if len(crd.Status.StoredVersions) == 0 {
		if storage, err := apihelpers.GetCRDStorageVersion(crd); err == nil {
			crd.Status.StoredVersions = []string{storage}
		}
	}
	if crd.ResourceVersion == "" {
		crd.ResourceVersion = "1"
	}
	crd.Status.AcceptedNames = crd.Spec.Names
	for _, c := range []apiextensionsv1.CustomResourceDefinitionConditionType{apiextensionsv1.NamesAccepted, apiextensionsv1.Established} {
		apihelpers.SetCRDCondition(crd, apiextensionsv1.CustomResourceDefinitionCondition{Type: c, Status: apiextensionsv1.ConditionTrue})
	}
	return crd
}

// liveObjects finds objects in the cluster: one list per resource version
// and namespace, shared by every object of the input; where the user may
// not list them (RBAC often lets a deployer get and patch, not list), a
// get of each.
func liveObjects(client dynamic.Interface) OldLookup {
	type listKey struct {
		gvr       schema.GroupVersionResource
		namespace string
	}
	// live is what one list found; getEach when the list was forbidden.
	type live struct {
		byName  map[string]map[string]any
		getEach bool
	}
	var lists memo.Map[listKey, live]
	// A resource the server cannot list (after client-go's retries, which
	// can take seconds) is not asked for again in another namespace.
	var failed sync.Map // schema.GroupVersionResource -> error
	return func(ctx context.Context, _ schema.GroupVersionKind, gvr schema.GroupVersionResource, ns, name string) (map[string]any, error) {
		k := listKey{gvr, ns}
		found, err := lists.Get(k, func() (live, error) {
			if err, ok := failed.Load(k.gvr); ok {
				return live{}, err.(error)
			}
			list, err := client.Resource(k.gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
			switch {
			case apierrors.IsNotFound(err):
				return live{}, nil // the CRD is in the input, not yet in the cluster
			case apierrors.IsForbidden(err):
				return live{getEach: true}, nil
			case err != nil:
				failed.Store(k.gvr, err)
				return live{}, err
			}
			byName := map[string]map[string]any{}
			for _, item := range list.Items {
				byName[item.GetName()] = item.Object
			}
			return live{byName: byName}, nil
		})
		if err != nil || !found.getEach {
			return found.byName[name], err
		}
		obj, err := client.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return obj.Object, nil
	}
}
