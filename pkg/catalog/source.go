// Package catalog finds CustomResourceDefinitions (in a cluster or in local
// files) and resolves TYPE arguments to them the way kubectl resolves
// resource names.
package catalog

import (
	"context"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/client-go/discovery"
)

// CRD is a CustomResourceDefinition together with where it was read from.
type CRD struct {
	*apiextensionsv1.CustomResourceDefinition
	// Origin is "file:line" for CRDs read from files, "" for CRDs from a
	// cluster.
	Origin string
}

// Source is where CRDs come from.
type Source interface {
	// Discovery answers the discovery questions about the source's resources
	// as an API server serving those CRDs would.
	Discovery() discovery.CachedDiscoveryInterface
	// Get returns the CRD with the given name (plural.group), or an error
	// that apierrors.IsNotFound recognises.
	Get(ctx context.Context, name string) (*CRD, error)
	// List returns every CRD.
	List(ctx context.Context) ([]*CRD, error)
}

// Definitions returns the CustomResourceDefinitions of crds.
func Definitions(crds []*CRD) []*apiextensionsv1.CustomResourceDefinition {
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(crds))
	for i, c := range crds {
		out[i] = c.CustomResourceDefinition
	}
	return out
}
