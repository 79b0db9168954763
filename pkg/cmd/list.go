package cmd

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/migrate"
	"github.com/spf13/cobra"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/dynamic"
	kubectlget "k8s.io/kubectl/pkg/cmd/get"
)

// ListOptions are the options of kubectl crd list.
type ListOptions struct {
	f          *Factory
	printFlags *kubectlget.PrintFlags

	Filenames     []string
	LabelSelector string
	Types         []string

	catalog *catalog.Catalog
	objects dynamic.Interface // nil: objects are not counted
}

// NewCmdList makes kubectl crd list.
func NewCmdList(f *Factory) *cobra.Command {
	o := &ListOptions{f: f, printFlags: kubectlget.NewGetPrintFlags()}
	c := &cobra.Command{
		Use:     "list [TYPE...]",
		Aliases: []string{"ls"},
		Short:   "List CRDs with their versions over time: served, stored, to migrate",
		Long: `List CustomResourceDefinitions (all, or those the TYPE arguments name,
categories included), a row each: the versions (* the storage version,
deprecated ones marked, unserved ones in parentheses), status.storedVersions,
the conversion, the number of objects (counted with one list of one object;
- where unknown or forbidden), and whether a migration is due (storedVersions
holds a version other than the storage version; kubectl crd migrate does it).
-o wide adds short names, categories and the conditions that are not healthy.
Offline (--crds, or -f), objects are unknown, and so is the age unless the
file carries the CRD's creationTimestamp.`,
		Example: `  kubectl crd list
  kubectl crd ls -o wide --sort-by .objects

  # The CRDs whose objects need migrating, for a script
  kubectl crd list -o jsonpath='{range .items[?(@.migrationNeeded)]}{.name}{"\n"}{end}'`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(contextOf(c))
		},
		ValidArgsFunction: completeTypes(f),
	}
	o.printFlags.AddFlags(c)
	c.Flags().StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) on the CRDs' labels.")
	c.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "Files or directories of CRDs to list instead of the cluster's.")
	return c
}

// Complete makes the catalog (of -f files, --crds files or the cluster)
// and the client that counts objects (online).
func (o *ListOptions) Complete(args []string) error {
	o.Types = args
	if len(o.Filenames) > 0 {
		files, err := catalog.ReadFiles(o.Filenames, o.f.Streams.In, catalog.NewIndex(o.f.IndexDir))
		if err != nil {
			return err
		}
		o.catalog = catalog.New(files, o.f.Warn)
		return nil
	}
	var err error
	if o.catalog, err = o.f.Catalog(); err != nil || o.f.Offline() {
		return err
	}
	config, err := o.f.RESTConfig()
	if err != nil {
		return err
	}
	o.objects, err = dynamic.NewForConfig(config)
	return err
}

// Validate checks the flags.
func (o *ListOptions) Validate() error {
	if _, err := labels.Parse(o.LabelSelector); err != nil {
		return err
	}
	_, err := o.printFlags.ToPrinter()
	return err
}

// Run lists the CRDs and prints them.
func (o *ListOptions) Run(ctx context.Context) error {
	crds, err := o.selected(ctx)
	if err != nil {
		return err
	}
	counts := o.count(ctx, crds)
	items := make([]runtime.Object, len(crds))
	for i, crd := range crds {
		items[i] = &unstructured.Unstructured{Object: migrate.Summary(crd, counts[i])}
	}
	if sortBy := *o.printFlags.HumanReadableFlags.SortBy; sortBy != "" {
		if err := kubectlget.NewRuntimeSorter(items, sortBy).Sort(); err != nil {
			return err
		}
	}
	printer, err := o.printFlags.ToPrinter()
	if err != nil {
		return err
	}
	out := o.f.Streams.Out
	switch format := *o.printFlags.OutputFormat; format {
	case "", "wide":
		return printer.PrintObj(summaryTable(items), out)
	case "name":
		for _, it := range items {
			name := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: it.(*unstructured.Unstructured).GetName()}}
			name.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
			if err := printer.PrintObj(name, out); err != nil {
				return err
			}
		}
		return nil
	default:
		list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{}}}
		for _, it := range items {
			list.Items = append(list.Items, *it.(*unstructured.Unstructured))
		}
		if strings.HasPrefix(format, "custom-columns") {
			for _, it := range items {
				if err := printer.PrintObj(it, out); err != nil {
					return err
				}
			}
			return nil
		}
		return printer.PrintObj(list, out)
	}
}

// selected is every CRD, or those the TYPE arguments name, with the label
// selector's labels, by name. Without TYPE arguments every CRD is listed
// from its outline, which holds all a row shows, so that over files no
// schema is decoded; those TYPE arguments name are resolved whole.
func (o *ListOptions) selected(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	var crds []*apiextensionsv1.CustomResourceDefinition
	var err error
	if len(o.Types) == 0 {
		crds, err = o.catalog.Outlines(ctx)
	} else {
		crds, err = namedCRDs(ctx, o.catalog, o.Types)
	}
	if err != nil {
		return nil, err
	}
	selector, err := labels.Parse(o.LabelSelector)
	if err != nil {
		return nil, err
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, c := range crds {
		if selector.Matches(labels.Set(c.Labels)) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// count counts each CRD's objects with a list of one object and the
// number the server says remain; nil where that cannot be known (offline,
// forbidden, or the list failed: then a warning says why).
func (o *ListOptions) count(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition) []*int64 {
	counts := make([]*int64, len(crds))
	if o.objects == nil {
		return counts
	}
	parallel.On(8, len(crds), func(i int) {
		crd := crds[i]
		version, err := apihelpers.GetCRDStorageVersion(crd)
		if err != nil || !apihelpers.HasServedCRDVersion(crd, version) {
			for _, v := range crd.Spec.Versions {
				if v.Served {
					version = v.Name
					break
				}
			}
		}
		gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: version, Resource: crd.Spec.Names.Plural}
		list, err := o.objects.Resource(gvr).List(ctx, metav1.ListOptions{Limit: 1})
		switch {
		case apierrors.IsForbidden(err):
			return
		case err != nil:
			o.f.Warn(fmt.Sprintf("counting the objects of %s: %v", crd.Name, err))
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

// summaryTable is the table of list: a row per CRD, its object the item of
// -o json (for --show-labels and -L).
func summaryTable(items []runtime.Object) *metav1.Table {
	col := func(name, typ, desc string, priority int32) metav1.TableColumnDefinition {
		return metav1.TableColumnDefinition{Name: name, Type: typ, Description: desc, Priority: priority}
	}
	t := &metav1.Table{ColumnDefinitions: []metav1.TableColumnDefinition{
		col("Name", "string", "plural.group", 0),
		col("Kind", "string", "the kind", 0),
		col("Scope", "string", "Namespaced or Cluster", 0),
		col("Versions", "string", "in order; * the storage version; unserved ones in parentheses", 0),
		col("Stored", "string", "status.storedVersions", 0),
		col("Conversion", "string", "None, or Webhook with its service or URL", 0),
		col("Objects", "string", "how many objects; - where unknown", 0),
		col("Migrate", "string", "yes when storedVersions holds a version other than the storage version", 0),
		col("Age", "string", "since the CRD was created", 0),
		col("ShortNames", "string", "short names", 1),
		col("Categories", "string", "categories", 1),
		col("Conditions", "string", "conditions that are not healthy", 1),
	}}
	for _, it := range items {
		u := it.(*unstructured.Unstructured)
		s := u.Object
		objects := "-"
		if n, ok := s["objects"].(int64); ok {
			objects = fmt.Sprint(n)
		}
		age := "<unknown>"
		if ts := u.GetCreationTimestamp(); !ts.IsZero() {
			age = duration.HumanDuration(time.Since(ts.Time))
		}
		t.Rows = append(t.Rows, metav1.TableRow{
			Cells: []any{s["name"], s["kind"], s["scope"], versionsCell(s), joinCell(s["storedVersions"]), s["conversion"],
				objects, yesNo(s["migrationNeeded"]), age, joinCell(s["shortNames"]), joinCell(s["categories"]), joinCell(s["conditions"])},
			Object: runtime.RawExtension{Object: u},
		})
	}
	return t
}

func versionsCell(s map[string]any) string {
	var parts []string
	for _, v := range s["versions"].([]any) {
		m := v.(map[string]any)
		p := m["name"].(string)
		if m["storage"] == true {
			p += "*"
		}
		if m["deprecated"] == true {
			p += "(deprecated)"
		}
		if m["served"] != true {
			p = "(" + p + ")"
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, ",")
}

func joinCell(v any) string {
	var parts []string
	for _, x := range v.([]any) {
		parts = append(parts, fmt.Sprint(x))
	}
	if len(parts) == 0 {
		return "<none>"
	}
	return strings.Join(parts, ",")
}

func yesNo(v any) string {
	if v == true {
		return "yes"
	}
	return "no"
}
