package cmd

import (
	"context"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// namedCRDs are the CRDs the TYPE arguments name, each once and in
// argument order, or every CRD of the catalog when there are none.
func namedCRDs(ctx context.Context, cat *catalog.Catalog, types []string) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	if len(types) == 0 {
		list, err := cat.List(ctx)
		if err != nil {
			return nil, err
		}
		return catalog.Definitions(list), nil
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	seen := map[string]bool{}
	for _, t := range types {
		res, err := cat.Resolve(ctx, t)
		if err != nil {
			return nil, err
		}
		for _, r := range res {
			if r.CRD == nil {
				return nil, fmt.Errorf("cannot read the CustomResourceDefinition of %q", t)
			}
			if !seen[r.CRD.Name] {
				seen[r.CRD.Name] = true
				crds = append(crds, r.CRD.CustomResourceDefinition)
			}
		}
	}
	return crds, nil
}
