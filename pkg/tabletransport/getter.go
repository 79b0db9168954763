package tabletransport

import (
	"context"
	"net/http"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
)

// Getter is the kubeconfig's client getter with every client that
// kubectl's get makes from it answering Table requests for custom
// resources on the client (discovery goes to the server as it is).
type Getter struct {
	*genericclioptions.ConfigFlags
	Tables *Tables
}

// ToRESTConfig is the kubeconfig's client config with Transport under it.
func (g *Getter) ToRESTConfig() (*rest.Config, error) {
	c, err := g.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	prefix := ""
	if base, _, err := rest.DefaultServerUrlFor(c); err == nil {
		prefix = base.Path
	}
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return &Transport{Next: rt, Tables: g.Tables, Prefix: prefix}
	})
	return c, nil
}

// CatalogLookup finds CRDs among the resources already resolved, then in
// the catalog; a CRD the user may not read is left to the server to
// print.
func CatalogLookup(cat *catalog.Catalog, resolved []catalog.Resource) LookupFunc {
	known := map[schema.GroupResource]*apiextensionsv1.CustomResourceDefinition{}
	for _, r := range resolved {
		if r.CRD != nil {
			known[r.Mapping.Resource.GroupResource()] = r.CRD.CustomResourceDefinition
		}
	}
	return func(ctx context.Context, gr schema.GroupResource) (*apiextensionsv1.CustomResourceDefinition, error) {
		if crd, ok := known[gr]; ok {
			return crd, nil
		}
		crd, err := cat.ForResource(ctx, gr)
		switch {
		case apierrors.IsForbidden(err):
			klog.V(2).InfoS("Cannot read the CustomResourceDefinition; asking the server for the table", "name", gr.String(), "err", err)
			return nil, nil
		case err != nil || crd == nil:
			return nil, err
		}
		return crd.CustomResourceDefinition, nil
	}
}
