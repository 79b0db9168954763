package cmd

import (
	"context"
	"io"
	"sort"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/lifecycle"
	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/dynamic"
	kubectlget "k8s.io/kubectl/pkg/cmd/get"
)

// ListOptions are the options of kubectl crd list.
type ListOptions struct {
	printFlags *kubectlget.PrintFlags

	Filenames     []string
	LabelSelector string
	Types         []string

	f        *factory.Factory // the sources and the cluster, read by Run
	catalog  *catalog.Catalog
	objects  dynamic.Interface // nil: objects are not counted
	selector labels.Selector
	printer  printers.ResourcePrinter
	// flagErr is what is wrong with -l or -o, said by Validate.
	flagErr error
	warn    func(string)
	out     io.Writer
}

// NewCmdList makes kubectl crd list.
func NewCmdList(f *factory.Factory) *cobra.Command {
	o := &ListOptions{printFlags: kubectlget.NewGetPrintFlags()}
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
		RunE:              runVerb(f, o),
		ValidArgsFunction: completeTypes(f),
	}
	o.printFlags.AddFlags(c)
	c.Flags().StringVarP(&o.LabelSelector, "selector", "l", "", "Selector (label query) on the CRDs' labels.")
	c.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "Files, directories, URLs, git:REV:PATH or Helm charts of CRDs to list instead of the cluster's.")
	return c
}

// Complete makes the catalog (of -f files, --crds files or the cluster)
// and the client that counts objects (online).
func (o *ListOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.Types, o.warn, o.out, o.f = args, f.Warn, f.Streams.Out, f
	var err error
	if o.selector, err = labels.Parse(o.LabelSelector); err != nil {
		o.flagErr = err
	} else if o.printer, err = o.printFlags.ToPrinter(); err != nil {
		o.flagErr = err
	}
	return nil
}

// load reads the CRDs (-f, --crds or the cluster's) and, online, makes
// the client that counts their objects.
func (o *ListOptions) load() error {
	f := o.f
	if len(o.Filenames) > 0 {
		files, err := catalog.ReadFiles(o.Filenames, f.Sources(), catalog.NewIndex(f.IndexDir))
		if err != nil {
			return &factory.FlagError{Flag: "-f", Err: err}
		}
		o.catalog = catalog.New(files, f.Warn)
		return nil
	}
	var err error
	if o.catalog, err = f.Catalog(false); err != nil || f.Offline(false) {
		return err
	}
	o.objects, err = f.DynamicClient()
	return err
}

// Validate checks the flags.
func (o *ListOptions) Validate() error { return o.flagErr }

// Run lists the CRDs and prints them.
func (o *ListOptions) Run(ctx context.Context) error {
	if err := o.load(); err != nil {
		return err
	}
	crds, err := o.selected(ctx)
	if err != nil {
		return err
	}
	counts := make([]*int64, len(crds))
	if o.objects != nil {
		counts = lifecycle.Count(ctx, o.objects, crds, o.warn)
	}
	rows := make([]lifecycle.Row, len(crds))
	for i, crd := range crds {
		rows[i] = lifecycle.RowOf(crd, counts[i])
	}
	if rows, err = lifecycle.SortBy(rows, *o.printFlags.HumanReadableFlags.SortBy); err != nil {
		return err
	}
	return lifecycle.Print(o.out, o.printer, *o.printFlags.OutputFormat, rows)
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
		crds, err = o.catalog.Named(ctx, o.Types)
	}
	if err != nil {
		return nil, err
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, c := range crds {
		if o.selector.Matches(labels.Set(c.Labels)) {
			out = append(out, c)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
