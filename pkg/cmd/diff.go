package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/diff"
	"github.com/kubectl-crd/kubectl-crd/pkg/listing"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/spf13/cobra"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// DiffOptions are the options of kubectl crd diff.
type DiffOptions struct {
	f *Factory

	Filenames   []string
	Old         []string
	Output      string
	Checks      []string
	NoObjects   bool
	ShowObjects int

	news    []newCRD
	olds    *catalog.Catalog  // the CRDs the new ones replace, and those beside them
	objects dynamic.Interface // nil: stored objects are not read
}

// newCRD is a CRD of the input, with its document (for positions).
type newCRD struct {
	crd *catalog.CRD
	doc *manifest.Document
}

// NewCmdDiff makes kubectl crd diff.
func NewCmdDiff(f *Factory) *cobra.Command {
	o := &DiffOptions{f: f, Output: "text", ShowObjects: 20}
	c := &cobra.Command{
		Use:   "diff -f NEW [--old PATH]",
		Short: "Show what a CRD upgrade changes, and what it does to the objects already stored",
		Long: `Compare each CustomResourceDefinition in NEW with the CRD it would replace
(the live CRD, or --old files) and report every change with a check name
and a severity: versions removed, unserved or still stored, the storage
version moved, scope, and each version's fields, types, required fields,
enums, defaults, bounds, patterns, pruning, list types and CEL rules.
Online (unless --no-objects), every stored object is read and checked as
its next write under NEW would be: which would be refused, which fields
pruned.

Exit status: 0 when nothing is at error severity, 1 when the upgrade
breaks something, 2 when the input cannot be read.`,
		Example: `  # Before applying a new release's CRDs
  kubectl crd diff -f config/crd/bases/

  # Offline, against the CRDs of the last release; a pull request comment
  kubectl crd diff -f new/ --old old/ -o markdown

  # Treat added defaults as errors, ignore added fields
  kubectl crd diff -f crd.yaml --check default-added=error --check field-added=ignore`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Validate(args); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			if err := o.Complete(); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			return o.Run(contextOf(c))
		},
	}
	c.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "Files or directories of the new CRDs.")
	c.Flags().StringArrayVar(&o.Old, "old", nil, "Files or directories of the CRDs as they are now (default: the cluster's).")
	c.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Output format: "+strings.Join(diff.Formats, ", ")+".")
	c.Flags().StringArrayVar(&o.Checks, "check", nil, "NAME=error|warning|info|ignore: the severity of a check (repeatable).")
	c.Flags().BoolVar(&o.NoObjects, "no-objects", false, "Do not read the stored objects.")
	c.Flags().IntVar(&o.ShowObjects, "show-objects", o.ShowObjects, "List at most this many affected objects (by name) per CRD; the counts are of all.")
	_ = c.MarkFlagFilename("filename", "yaml", "yml", "json")
	_ = c.MarkFlagFilename("old", "yaml", "yml", "json")
	_ = c.RegisterFlagCompletionFunc("check", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, ch := range diff.Checks {
			if name, _, _ := strings.Cut(toComplete, "="); strings.HasPrefix(ch.Name, name) {
				for _, s := range []diff.Severity{diff.Error, diff.Warning, diff.Info, diff.Ignore} {
					if v := ch.Name + "=" + string(s); strings.HasPrefix(v, toComplete) {
						out = append(out, v)
					}
				}
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

// Validate checks the flags.
func (o *DiffOptions) Validate(args []string) error {
	switch {
	case len(args) > 0:
		return fmt.Errorf("unexpected arguments %q: name the new CRDs with -f", args)
	case len(o.Filenames) == 0:
		return errors.New("no new CRDs: name files or directories with -f")
	case !slices.Contains(diff.Formats, o.Output):
		return fmt.Errorf("--output must be one of %s, not %q", strings.Join(diff.Formats, ", "), o.Output)
	case o.ShowObjects < 0:
		return errors.New("--show-objects must not be negative")
	}
	_, err := diff.Judge(nil, o.Checks)
	return err
}

// Complete reads the new CRDs and says where the old ones and the stored
// objects come from.
func (o *DiffOptions) Complete() error {
	// Which stored objects the new CRD refuses is the cluster's version's
	// answer.
	if err := o.f.UseKubernetesVersion(); err != nil {
		return err
	}
	docs, err := manifest.ReadPaths(o.Filenames, true, o.f.Streams.In)
	if err != nil {
		return err
	}
	for i := range docs {
		d := &docs[i]
		if !catalog.IsCRD(d.TypeMeta()) {
			continue
		}
		crd, err := catalog.DecodeCRD(d)
		if err != nil {
			return err
		}
		o.news = append(o.news, newCRD{crd: crd, doc: d})
	}
	if len(o.news) == 0 {
		return fmt.Errorf("no CustomResourceDefinition in %s", strings.Join(o.Filenames, ", "))
	}
	if len(o.Old) > 0 {
		files, err := catalog.ReadFiles(o.Old, nil, catalog.NewIndex(o.f.IndexDir))
		if err != nil {
			return err
		}
		o.olds = catalog.New(files, nil)
		return nil
	}
	if o.olds, err = o.f.Catalog(); err != nil {
		return err
	}
	if o.NoObjects || o.f.Offline() {
		return nil
	}
	config, err := o.f.RESTConfig()
	if err != nil {
		return err
	}
	o.objects, err = dynamic.NewForConfig(config)
	return err
}

// Run compares and reports.
func (o *DiffOptions) Run(ctx context.Context) error {
	var reports []diff.Report
	for _, n := range o.news {
		r, err := o.report(ctx, n)
		if err != nil {
			return &ExitError{Code: 2, Err: err}
		}
		reports = append(reports, r)
	}
	if err := diff.Write(o.f.Streams.Out, reports, o.Output, Version); err != nil {
		return err
	}
	for _, r := range reports {
		if r.Summary.Breaking {
			return &ExitError{Code: 1}
		}
	}
	return nil
}

func (o *DiffOptions) report(ctx context.Context, n newCRD) (diff.Report, error) {
	r := diff.Report{CRD: n.crd.Name, File: n.doc.File, Changes: []diff.Change{}, Objects: []diff.ObjectImpact{}}
	found, err := o.olds.ForResource(ctx, schema.ParseGroupResource(n.crd.Name))
	if err != nil {
		return r, err
	}
	others, err := o.olds.ListWhere(ctx, func(old *apiextensionsv1.CustomResourceDefinition) bool {
		return diff.Competes(n.crd.CustomResourceDefinition, old)
	})
	if err != nil {
		return r, err
	}
	changes := diff.NameConflicts(n.crd.CustomResourceDefinition, catalog.Definitions(others))
	if found == nil {
		// A new CRD: nothing it replaces, nothing stored.
		return o.judged(r, n, changes)
	}
	old := found.CustomResourceDefinition
	changes = append(changes, diff.Compare(old, n.crd.CustomResourceDefinition)...)
	if o.objects != nil {
		r.Summary.Objects = map[string]diff.VersionImpact{}
		for _, v := range n.crd.Spec.Versions {
			if !v.Served || !apihelpers.HasServedCRDVersion(old, v.Name) {
				continue
			}
			counts, err := o.scan(ctx, old, n.crd.CustomResourceDefinition, v.Name, &r.Objects)
			if err != nil {
				return r, err
			}
			r.Summary.Objects[v.Name] = counts
			changes = append(changes, diff.ImpactChanges(v.Name, counts)...)
		}
	}
	return o.judged(r, n, changes)
}

// judged gives the changes their severities and places in the new file.
func (o *DiffOptions) judged(r diff.Report, n newCRD, changes []diff.Change) (diff.Report, error) {
	var err error
	if r.Changes, err = diff.Judge(changes, o.Checks); err != nil {
		return r, err
	}
	for i := range r.Changes {
		r.Changes[i].Line, r.Changes[i].Column = n.doc.Position(r.Changes[i].Location)
	}
	r.Summarize()
	return r, nil
}

// scan checks every stored object of the old CRD, read at version, against
// the new CRD, a page at a time, so that memory does not grow with the
// objects: only the counts and the first ShowObjects affected objects
// (into shown) are kept.
func (o *DiffOptions) scan(ctx context.Context, old, newCRD *apiextensionsv1.CustomResourceDefinition, version string, shown *[]diff.ObjectImpact) (diff.VersionImpact, error) {
	var counts diff.VersionImpact
	checker, err := diff.NewImpactChecker(newCRD, version)
	if err != nil {
		return counts, err
	}
	gvr := schema.GroupVersionResource{Group: old.Spec.Group, Version: version, Resource: old.Spec.Names.Plural}
	seen := map[string]bool{} // a list that starts again sends objects again
	err = listing.Each(ctx, o.objects.Resource(gvr), 500, func(page []unstructured.Unstructured) error {
		objs := make([]map[string]any, 0, len(page))
		for i := range page {
			if key := listing.Key(&page[i]); !seen[key] {
				seen[key] = true
				objs = append(objs, page[i].Object)
			}
		}
		*shown = diff.FirstByName(append(*shown, checker.Check(ctx, objs, &counts)...), o.ShowObjects)
		return nil
	})
	if err != nil {
		return counts, fmt.Errorf("listing %s: %w", gvr.GroupResource(), err)
	}
	return counts, nil
}
