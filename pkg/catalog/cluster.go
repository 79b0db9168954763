package catalog

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
)

// Cluster is a Source over the CRDs of a live cluster. Discovery is the
// cached discovery kubectl uses; CRDs are fetched one by one, and listed
// only when a listing is the question.
type Cluster struct {
	discovery discovery.CachedDiscoveryInterface
	crds      apiextensionsclient.CustomResourceDefinitionInterface
}

// NewCluster makes a cluster Source from a (cached) discovery client and a
// CRD client for the same cluster.
func NewCluster(dc discovery.CachedDiscoveryInterface, crds apiextensionsclient.CustomResourceDefinitionInterface) *Cluster {
	return &Cluster{discovery: dc, crds: crds}
}

func (c *Cluster) Discovery() discovery.CachedDiscoveryInterface { return c.discovery }

func (c *Cluster) Get(ctx context.Context, name string) (*CRD, error) {
	crd, err := c.crds.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return &CRD{CustomResourceDefinition: crd, Origin: FromCluster}, nil
}

func (c *Cluster) List(ctx context.Context) ([]*CRD, error) {
	list, err := c.crds.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("listing CustomResourceDefinitions: %w", err)
	}
	out := make([]*CRD, len(list.Items))
	for i := range list.Items {
		out[i] = &CRD{CustomResourceDefinition: &list.Items[i], Origin: FromCluster}
	}
	return out, nil
}

// ListWhere lists every CRD (one request) and keeps those keep says yes to.
func (c *Cluster) ListWhere(ctx context.Context, keep func(*apiextensionsv1.CustomResourceDefinition) bool) ([]*CRD, error) {
	all, err := c.List(ctx)
	if err != nil {
		return nil, err
	}
	var out []*CRD
	for _, crd := range all {
		if keep(crd.CustomResourceDefinition) {
			out = append(out, crd)
		}
	}
	return out, nil
}

// Outlines are the whole CRDs: a cluster lists them in one request.
func (c *Cluster) Outlines(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	all, err := c.List(ctx)
	if err != nil {
		return nil, err
	}
	return Definitions(all), nil
}
