package lifecycle

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/dynamic"
)

// Row is a CRD as kubectl crd list shows it: its names and scope, its
// versions over time, its objects (nil: unknown) and whether a migration
// is due. Metadata holds what kubectl's printers read of an object (for
// --show-labels, -L and --sort-by).
type Row struct {
	Metadata        Metadata  `json:"metadata"`
	Name            string    `json:"name"`
	Group           string    `json:"group"`
	Kind            string    `json:"kind"`
	Scope           string    `json:"scope"`
	Versions        []Version `json:"versions"`
	StoredVersions  []string  `json:"storedVersions"`
	Conversion      string    `json:"conversion"`
	Objects         *int64    `json:"objects"`
	MigrationNeeded bool      `json:"migrationNeeded"`
	ShortNames      []string  `json:"shortNames"`
	Categories      []string  `json:"categories"`
	Conditions      []string  `json:"conditions"`
}

// Metadata is the CRD's name, labels and creation time.
type Metadata struct {
	Name              string            `json:"name"`
	Labels            map[string]string `json:"labels,omitempty"`
	CreationTimestamp *metav1.Time      `json:"creationTimestamp,omitempty"`
}

// RowOf is the row of a CRD with its objects counted (nil: unknown).
func RowOf(crd *apiextensionsv1.CustomResourceDefinition, objects *int64) Row {
	r := Row{
		Metadata:        Metadata{Name: crd.Name, Labels: crd.Labels},
		Name:            crd.Name,
		Group:           crd.Spec.Group,
		Kind:            crd.Spec.Names.Kind,
		Scope:           string(crd.Spec.Scope),
		Versions:        Versions(crd),
		StoredVersions:  orEmpty(crd.Status.StoredVersions),
		Conversion:      ConversionOf(crd).String(),
		Objects:         objects,
		MigrationNeeded: MigrationNeeded(crd),
		ShortNames:      orEmpty(crd.Spec.Names.ShortNames),
		Categories:      orEmpty(crd.Spec.Names.Categories),
		Conditions:      Unhealthy(crd),
	}
	if !crd.CreationTimestamp.IsZero() {
		t := metav1.NewTime(crd.CreationTimestamp.UTC())
		r.Metadata.CreationTimestamp = &t
	}
	return r
}

// orEmpty keeps a list a list in JSON ([] rather than null).
func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Object is the row as kubectl's printers take it (-o json, yaml,
// jsonpath, custom-columns, --sort-by): its JSON, as an object.
func (r Row) Object() (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&r)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// Count counts each CRD's objects with a list of one object and the
// number the server says remain; nil where that cannot be known
// (forbidden, or the list failed: then warn says why).
func Count(ctx context.Context, client dynamic.Interface, crds []*apiextensionsv1.CustomResourceDefinition, warn func(string)) []*int64 {
	counts := make([]*int64, len(crds))
	parallel.On(8, len(crds), func(i int) {
		crd := crds[i]
		gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: listedVersion(crd), Resource: crd.Spec.Names.Plural}
		list, err := client.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1})
		switch {
		case apierrors.IsForbidden(err):
			return
		case err != nil:
			warn(fmt.Sprintf("counting the objects of %s: %v", crd.Name, err))
			return
		}
		n := int64(len(list.Items))
		switch {
		case list.GetRemainingItemCount() != nil:
			n += *list.GetRemainingItemCount()
		case list.GetContinue() != "":
			return // more, but how many is not said
		}
		counts[i] = &n
	})
	return counts
}

// listedVersion is the version objects are counted at: the storage
// version where it is served, else the first served one.
func listedVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	version, err := apihelpers.GetCRDStorageVersion(crd)
	if err == nil && apihelpers.HasServedCRDVersion(crd, version) {
		return version
	}
	for _, v := range crd.Spec.Versions {
		if v.Served {
			return v.Name
		}
	}
	return version
}

// Table is list's table: a row per CRD, with objects[i] (rows[i] as an
// object) the row's object, for --show-labels and -L.
func Table(rows []Row, objects []*unstructured.Unstructured) *metav1.Table {
	col := func(name, desc string, priority int32) metav1.TableColumnDefinition {
		return metav1.TableColumnDefinition{Name: name, Type: "string", Description: desc, Priority: priority}
	}
	t := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{
		col("Name", "plural.group", 0),
		col("Kind", "the kind", 0),
		col("Scope", "Namespaced or Cluster", 0),
		col("Versions", "in order; * the storage version; unserved ones in parentheses", 0),
		col("Stored", "status.storedVersions", 0),
		col("Conversion", "None, or Webhook with its service or URL", 0),
		col("Objects", "how many objects; - where unknown", 0),
		col("Migrate", "yes when storedVersions holds a version other than the storage version", 0),
		col("Age", "since the CRD was created", 0),
		col("ShortNames", "short names", 1),
		col("Categories", "categories", 1),
		col("Conditions", "conditions that are not healthy", 1),
	}}
	for i, r := range rows {
		count := "-"
		if r.Objects != nil {
			count = fmt.Sprint(*r.Objects)
		}
		age := "<unknown>"
		if ts := r.Metadata.CreationTimestamp; ts != nil {
			age = duration.HumanDuration(time.Since(ts.Time))
		}
		migrate := "no"
		if r.MigrationNeeded {
			migrate = "yes"
		}
		cells := make([]string, len(r.Versions))
		for j, v := range r.Versions {
			cells[j] = v.Cell()
		}
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells: []any{r.Name, r.Kind, r.Scope, strings.Join(cells, ","), joined(r.StoredVersions), r.Conversion,
				count, migrate, age, joined(r.ShortNames), joined(r.Categories), joined(r.Conditions)},
			Object: runtime.RawExtension{Object: objects[i]},
		})
	}
	return t
}

// joined is a list as one cell, <none> when empty.
func joined(s []string) string {
	if len(s) == 0 {
		return "<none>"
	}
	return strings.Join(s, ",")
}
