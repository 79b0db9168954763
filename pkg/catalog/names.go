package catalog

import (
	"context"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"
)

// The names shell completion offers, each list sorted and without
// duplicates. The first two read outlines only: no CRD is decoded.

// TypeNames are the names a TYPE argument may take (plurals, singulars,
// short names, categories) that start with prefix.
func (c *Catalog) TypeNames(ctx context.Context, prefix string) ([]string, error) {
	crds, err := c.Outlines(ctx)
	var out []string
	for _, crd := range crds {
		n := crd.Spec.Names
		for _, name := range append(append([]string{n.Plural, n.Singular}, n.ShortNames...), n.Categories...) {
			if name != "" && strings.HasPrefix(name, prefix) {
				out = append(out, name)
			}
		}
	}
	return sortedUnique(out), err
}

// GroupVersions are the served GROUP/VERSIONs that start with prefix.
func (c *Catalog) GroupVersions(ctx context.Context, prefix string) ([]string, error) {
	crds, err := c.Outlines(ctx)
	var out []string
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if gv := crd.Spec.Group + "/" + v.Name; v.Served && strings.HasPrefix(gv, prefix) {
				out = append(out, gv)
			}
		}
	}
	return sortedUnique(out), err
}

// ObjectNames are the names of typ's objects in namespace (every
// namespace when allNamespaces is set, or the type is cluster-scoped)
// that start with prefix, read with client.
func (c *Catalog) ObjectNames(ctx context.Context, client metadata.Interface, typ, namespace string, allNamespaces bool, prefix string) ([]string, error) {
	r, err := c.One(ctx, typ)
	if err != nil {
		return nil, err
	}
	ri := client.Resource(r.Mapping.Resource)
	var list *metav1.PartialObjectMetadataList
	if allNamespaces || r.CRD.Spec.Scope == apiextensionsv1.ClusterScoped {
		list, err = ri.List(ctx, metav1.ListOptions{})
	} else {
		list, err = ri.Namespace(namespace).List(ctx, metav1.ListOptions{})
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, o := range list.Items {
		if strings.HasPrefix(o.Name, prefix) {
			out = append(out, o.Name)
		}
	}
	return sortedUnique(out), nil
}

func sortedUnique(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}
