package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/diff"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/spf13/cobra"
)

// DiffOptions are the options of kubectl crd diff.
type DiffOptions struct {
	Filenames   []string
	Old         []string
	Output      string
	Checks      []string
	NoObjects   bool
	ShowObjects int

	f        *factory.Factory // the sources and the cluster, read by Run
	crdPaths []string         // --crds
	args     []string
	news     []catalog.InputCRD
	// olds are the --old files (nil online).
	olds    *catalog.Files
	upgrade diff.Upgrade
	out     io.Writer
}

// NewCmdDiff makes kubectl crd diff.
func NewCmdDiff(f *factory.Factory) *cobra.Command {
	o := &DiffOptions{Output: "text", ShowObjects: 20}
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
		RunE: runVerb(f, o),
	}
	c.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "Files, directories, URLs, git:REV:PATH or Helm charts of the new CRDs.")
	c.Flags().StringArrayVar(&o.Old, "old", nil, "Files, directories, URLs, git:REV:PATH or Helm charts of the CRDs as they are now (default: the cluster's).")
	c.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Output format: "+strings.Join(diff.Formats, ", ")+".")
	c.Flags().StringArrayVar(&o.Checks, "check", nil, "NAME=error|warning|info|ignore: the severity of a check (repeatable).")
	c.Flags().BoolVar(&o.NoObjects, "no-objects", false, "Do not read the stored objects.")
	c.Flags().IntVar(&o.ShowObjects, "show-objects", o.ShowObjects, "List at most this many affected objects (by name) per CRD; the counts are of all.")
	_ = c.MarkFlagFilename("filename", "yaml", "yml", "json")
	_ = c.MarkFlagFilename("old", "yaml", "yml", "json")
	_ = c.RegisterFlagCompletionFunc("check", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return diff.CheckSettings(toComplete), cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

// Complete says where the old CRDs and the stored objects come from.
func (o *DiffOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.args, o.out, o.f, o.crdPaths = args, f.Streams.Out, f, f.CRDPaths
	o.upgrade = diff.Upgrade{Checks: o.Checks, ShowObjects: o.ShowObjects}
	return nil
}

// load reads the new CRDs and the old ones (--old, --crds or the
// cluster's), and online makes the client of the stored objects.
func (o *DiffOptions) load() error {
	f := o.f
	// Which stored objects the new CRD refuses is the cluster's version's
	// answer.
	var err error
	if o.upgrade.KubernetesVersion, err = f.AnswerAs(false); err != nil {
		return err
	}
	if len(o.Filenames) > 0 {
		docs, err := manifest.ReadPaths(o.Filenames, true, f.Sources())
		if err != nil {
			return &factory.FlagError{Flag: "-f", Err: err}
		}
		if o.news, _, err = catalog.Split(docs); err != nil {
			return err
		}
		if len(o.news) == 0 {
			return fmt.Errorf("no CustomResourceDefinition in %s", strings.Join(o.Filenames, ", "))
		}
	}
	if len(o.Old) > 0 {
		files, err := catalog.ReadFiles(o.Old, f.Sources(), catalog.NewIndex(f.IndexDir))
		if err != nil {
			return &factory.FlagError{Flag: "--old", Err: err}
		}
		o.olds, o.upgrade.Olds = files, catalog.New(files, nil)
		return nil
	}
	if o.upgrade.Olds, err = f.Catalog(false); err != nil {
		return err
	}
	if o.NoObjects || f.Offline(false) {
		return nil
	}
	o.upgrade.Objects, err = f.DynamicClient()
	return err
}

// Validate checks the flags, and that NEW holds CRDs.
func (o *DiffOptions) Validate() error {
	switch {
	case len(o.args) > 0:
		return fmt.Errorf("unexpected arguments %q: name the new CRDs with -f", o.args)
	case len(o.Filenames) == 0:
		return errors.New("no new CRDs: name files or directories with -f")
	case !slices.Contains(diff.Formats, o.Output):
		return fmt.Errorf("--output must be one of %s, not %q", strings.Join(diff.Formats, ", "), o.Output)
	case o.ShowObjects < 0:
		return errors.New("--show-objects must not be negative")
	case len(o.Old) > 0 && len(o.crdPaths) > 0:
		// --old replaces what --crds would give.
		return errors.New("--crds is not used with --old: the old CRDs are those of --old")
	}
	_, err := diff.Judge(nil, o.Checks)
	return err
}

// Run compares and reports.
func (o *DiffOptions) Run(ctx context.Context) error {
	if err := o.load(); err != nil {
		return err
	}
	var reports []diff.Report
	for _, n := range o.news {
		r, err := o.upgrade.Report(ctx, n)
		if err != nil {
			return err
		}
		reports = append(reports, r)
	}
	removed, err := o.removed(ctx)
	if err != nil {
		return err
	}
	reports = append(reports, removed...)
	if err := diff.Write(o.out, reports, o.Output, Version); err != nil {
		return err
	}
	for _, r := range reports {
		if r.Summary.Breaking {
			return findings
		}
	}
	return nil
}

// removed reports the --old CRDs that no new one replaces, found by their
// outlines; only those are decoded.
func (o *DiffOptions) removed(ctx context.Context) ([]diff.Report, error) {
	if o.olds == nil {
		return nil, nil
	}
	outlines, err := o.olds.Outlines(ctx)
	if err != nil {
		return nil, err
	}
	replaced := map[string]bool{}
	for _, n := range o.news {
		replaced[n.CRD.Name] = true
	}
	var out []diff.Report
	for _, outline := range outlines {
		if replaced[outline.Name] {
			continue
		}
		old, err := o.olds.Get(ctx, outline.Name)
		if err != nil {
			return nil, err
		}
		r, err := o.upgrade.Removed(old)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
