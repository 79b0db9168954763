package cluster

import (
	"context"
	"fmt"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

// CreateCRDs creates the CRDs and waits until each is established and its
// versions are served by discovery.
func (c *Cluster) CreateCRDs(ctx context.Context, crds ...*apiextensionsv1.CustomResourceDefinition) error {
	client, err := clientset.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	for _, crd := range crds {
		crd = crd.DeepCopy()
		crd.ResourceVersion = ""
		crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
		if _, err := client.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, crd, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating CRD %s: %w", crd.Name, err)
		}
	}
	dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		return err
	}
	c.mu.Lock()
	if c.mapper != nil {
		c.mapper.Reset()
	}
	c.mu.Unlock()
	for _, crd := range crds {
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			got, err := client.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, crd.Name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			if !established(got) {
				return false, nil
			}
			for _, v := range got.Spec.Versions {
				if !v.Served {
					continue
				}
				list, err := dc.ServerResourcesForGroupVersion(got.Spec.Group + "/" + v.Name)
				if apierrors.IsNotFound(err) {
					return false, nil
				}
				if err != nil {
					return false, err
				}
				if !hasResource(list, got.Status.AcceptedNames.Plural) {
					return false, nil
				}
			}
			return true, nil
		})
		if err != nil {
			return fmt.Errorf("waiting for CRD %s: %w", crd.Name, err)
		}
	}
	return nil
}

// restMapper returns a mapper over discovery cached in memory; CreateCRDs
// resets it.
func (c *Cluster) restMapper() (*restmapper.DeferredDiscoveryRESTMapper, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mapper == nil {
		dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
		if err != nil {
			return nil, err
		}
		c.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	}
	return c.mapper, nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, cond := range crd.Status.Conditions {
		if cond.Type == apiextensionsv1.Established && cond.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

func hasResource(list *metav1.APIResourceList, plural string) bool {
	for _, r := range list.APIResources {
		if r.Name == plural {
			return true
		}
	}
	return false
}

// CreateObjects creates custom resources (namespaced ones in their
// namespace, "default" when unset).
func (c *Cluster) CreateObjects(ctx context.Context, objs ...*unstructured.Unstructured) error {
	mapper, err := c.restMapper()
	if err != nil {
		return err
	}
	client, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return err
		}
		ri := client.Resource(m.Resource)
		var target dynamic.ResourceInterface = ri
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			ns := obj.GetNamespace()
			if ns == "" {
				ns = "default"
			}
			target = ri.Namespace(ns)
		}
		if _, err := target.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("creating %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
	}
	return nil
}

// CreateMany creates object(i) for i from from to to-1, eight at a time,
// and returns the first error.
func (c *Cluster) CreateMany(ctx context.Context, from, to int, object func(i int) *unstructured.Unstructured) error {
	work := make(chan int)
	errs := make(chan error, to-from)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				if err := c.CreateObjects(ctx, object(i)); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := from; i < to; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	close(errs)
	return <-errs
}

// Loaded counts what Load created.
type Loaded struct{ CRDs, Objects int }

// Load reads paths (files or directories, recursively) and creates the CRDs
// in them first, then every other object.
func (c *Cluster) Load(ctx context.Context, paths ...string) (Loaded, error) {
	return c.load(ctx, true, paths)
}

// LoadCRDs creates only the CRDs found in paths.
func (c *Cluster) LoadCRDs(ctx context.Context, paths ...string) (Loaded, error) {
	return c.load(ctx, false, paths)
}

func (c *Cluster) load(ctx context.Context, withObjects bool, paths []string) (Loaded, error) {
	docs, err := manifest.ReadPaths(paths, true, nil)
	if err != nil {
		return Loaded{}, err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	var objs []*unstructured.Unstructured
	for i := range docs {
		d := &docs[i]
		if catalog.IsCRD(d.TypeMeta()) {
			crd, err := catalog.DecodeCRD(d)
			if err != nil {
				return Loaded{}, err
			}
			crds = append(crds, crd.CustomResourceDefinition)
			continue
		}
		if !withObjects {
			continue
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(d.JSON); err != nil {
			return Loaded{}, fmt.Errorf("%s: %w", d.Pos(), err)
		}
		objs = append(objs, obj)
	}
	if err := c.CreateCRDs(ctx, crds...); err != nil {
		return Loaded{}, err
	}
	if err := c.CreateObjects(ctx, objs...); err != nil {
		return Loaded{}, err
	}
	return Loaded{CRDs: len(crds), Objects: len(objs)}, nil
}
