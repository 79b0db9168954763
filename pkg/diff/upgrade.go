package diff

import (
	"context"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/pagedlist"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/dynamic"
)

// Upgrade is what replacing CRDs is checked against: the CRDs they
// replace, and the objects stored under those.
type Upgrade struct {
	// Olds are the CRDs the new ones replace, and those beside them (for
	// name conflicts).
	Olds *catalog.Catalog
	// Objects reads the stored objects; nil: they are not read.
	Objects dynamic.Interface
	// Checks are the user's severity overrides (NAME=SEVERITY).
	Checks []string
	// ShowObjects is how many affected objects a report names at most;
	// the counts are of all.
	ShowObjects int
	// KubernetesVersion is the version whose answers these are (the
	// reports say it).
	KubernetesVersion *version.Version
}

// Report compares one new CRD with the CRD it replaces and, where the
// objects are read, checks every stored object against it.
func (u *Upgrade) Report(ctx context.Context, n catalog.InputCRD) (Report, error) {
	r := Report{CRD: n.CRD.Name, File: n.Doc.File, Changes: []Change{}, Objects: []ObjectImpact{}}
	if u.KubernetesVersion != nil {
		r.KubernetesVersion = u.KubernetesVersion.String()
	}
	found, err := u.Olds.ForResource(ctx, schema.ParseGroupResource(n.CRD.Name))
	if err != nil {
		return r, err
	}
	others, err := u.Olds.ListWhere(ctx, func(old *apiextensionsv1.CustomResourceDefinition) bool {
		return Competes(n.CRD.CustomResourceDefinition, old)
	})
	if err != nil {
		return r, err
	}
	changes := NameConflicts(n.CRD.CustomResourceDefinition, catalog.Definitions(others))
	if found == nil {
		// A new CRD: nothing it replaces, nothing stored.
		changes = append(changes, Change{Location: "metadata.name", Check: "crd-added",
			Message: fmt.Sprintf("CustomResourceDefinition %s is new", n.CRD.Name)})
		return u.judged(r, n, changes)
	}
	old := found.CustomResourceDefinition
	changes = append(changes, Compare(old, n.CRD.CustomResourceDefinition)...)
	if u.Objects != nil {
		r.Summary.Objects = map[string]VersionImpact{}
		for _, v := range n.CRD.Spec.Versions {
			if !v.Served || !apihelpers.HasServedCRDVersion(old, v.Name) {
				continue
			}
			counts, err := u.scan(ctx, old, n.CRD.CustomResourceDefinition, v.Name, &r.Objects)
			if err != nil {
				return r, err
			}
			r.Summary.Objects[v.Name] = counts
			changes = append(changes, ImpactChanges(v.Name, counts)...)
		}
	}
	return u.judged(r, n, changes)
}

// judged gives the changes their severities and places in the new file.
func (u *Upgrade) judged(r Report, n catalog.InputCRD, changes []Change) (Report, error) {
	var err error
	if r.Changes, err = Judge(changes, u.Checks); err != nil {
		return r, err
	}
	for i := range r.Changes {
		r.Changes[i].Line, r.Changes[i].Column = n.Doc.Position(r.Changes[i].Location)
	}
	r.Summarize()
	return r, nil
}

// scan checks every stored object of the old CRD, read at version, against
// the new CRD, a page at a time, so that memory does not grow with the
// objects: only the counts and the first ShowObjects affected objects
// (into shown) are kept.
func (u *Upgrade) scan(ctx context.Context, old, newCRD *apiextensionsv1.CustomResourceDefinition, version string, shown *[]ObjectImpact) (VersionImpact, error) {
	var counts VersionImpact
	checker, err := NewImpactChecker(newCRD, version)
	if err != nil {
		return counts, err
	}
	gvr := schema.GroupVersionResource{Group: old.Spec.Group, Version: version, Resource: old.Spec.Names.Plural}
	seen := map[string]bool{} // a list that starts again sends objects again
	err = pagedlist.Each(ctx, u.Objects.Resource(gvr), 500, func(page []unstructured.Unstructured) error {
		objs := make([]map[string]any, 0, len(page))
		for i := range page {
			if key := pagedlist.Key(&page[i]); !seen[key] {
				seen[key] = true
				objs = append(objs, page[i].Object)
			}
		}
		*shown = FirstByName(append(*shown, checker.Check(ctx, objs, &counts)...), u.ShowObjects)
		return nil
	})
	if err != nil {
		return counts, fmt.Errorf("listing %s: %w", gvr.GroupResource(), err)
	}
	return counts, nil
}

// Removed is the report of an old CRD that no new one replaces (when old
// and new files are compared): it would be deleted by whatever prunes what
// it no longer applies, with all its objects.
func (u *Upgrade) Removed(old *catalog.CRD) (Report, error) {
	file, line := old.Place()
	r := Report{CRD: old.Name, File: file, Changes: []Change{}, Objects: []ObjectImpact{}}
	if u.KubernetesVersion != nil {
		r.KubernetesVersion = u.KubernetesVersion.String()
	}
	changes := []Change{{Check: "crd-removed", Message: fmt.Sprintf("CustomResourceDefinition %s (%s) is not in the new CRDs", old.Name, old.Origin)}}
	var err error
	if r.Changes, err = Judge(changes, u.Checks); err != nil {
		return r, err
	}
	for i := range r.Changes {
		if line > 0 {
			r.Changes[i].Line, r.Changes[i].Column = line, 1
		}
	}
	r.Summarize()
	return r, nil
}
