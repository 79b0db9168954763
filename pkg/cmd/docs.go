package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/docs"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/lint"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	"github.com/kubectl-crd/kubectl-crd/pkg/sample"
	"github.com/spf13/cobra"
)

// DocsOptions are the options of kubectl crd docs.
type DocsOptions struct {
	f         *factory.Factory // the sources and the cluster, read by Run
	Types     []string
	OutputDir string
	Format    string
	Title     string
	Lint      string

	catalog *catalog.Catalog
	kube    *version.Version
	out     io.Writer
}

// NewCmdDocs makes kubectl crd docs.
func NewCmdDocs(f *factory.Factory) *cobra.Command {
	o := &DocsOptions{}
	c := &cobra.Command{
		Use:   "docs [TYPE...] --output-dir DIR [--format html|markdown]",
		Short: "Write a browsable reference of CRDs: every field, constraint and CEL rule",
		Long: `Write a reference of CustomResourceDefinitions (all, or those the TYPE
arguments name) into a directory: an HTML site that opens from disk
(index.html with a search over kinds and field paths, a page per CRD with
a version switcher, printer columns, subresources, the field tree with
every constraint and CEL rule the server enforces, a sample object the
server accepts (kubectl crd sample's), and what changed from the version
before), or Markdown files that GitHub renders.

The site needs no network and no build step. Files of the same names in
the directory are replaced; other files are left alone.`,
		Example: `  kubectl crd docs --crds examples/crds --output-dir site
  kubectl crd docs certificates.cert-manager.io --output-dir site
  kubectl crd docs --crds config/crd/bases --format markdown --output-dir docs/api`,
		RunE:              runVerb(f, o),
		ValidArgsFunction: completeTypes(f),
	}
	c.Flags().StringVar(&o.OutputDir, "output-dir", "", "Directory to write the reference into (made if missing).")
	c.Flags().StringVar(&o.Format, "format", "html", "What to write: html (a site) or markdown (a file per CRD and README.md).")
	c.Flags().StringVar(&o.Title, "title", "CustomResourceDefinitions", "Title of the index page.")
	c.Flags().StringVar(&o.Lint, "lint", "", "Show kubectl crd lint's findings at each field, under this profile: crd or kube (none when unset).")
	_ = c.RegisterFlagCompletionFunc("lint", cobra.FixedCompletions(lint.Profiles, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// Complete makes the catalog; the samples on the pages are objects the
// cluster's version accepts.
func (o *DocsOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.Types, o.out, o.f = args, f.Streams.Out, f
	return nil
}

// load resolves the Kubernetes version (the samples are checked as it
// checks them) and the catalog.
func (o *DocsOptions) load() error {
	var err error
	if o.kube, err = o.f.AnswerAs(false); err != nil {
		return err
	}
	o.catalog, err = o.f.Catalog(false)
	return err
}

// Validate checks the flags.
func (o *DocsOptions) Validate() error {
	if o.OutputDir == "" {
		return errors.New("--output-dir is required: the directory to write the reference into")
	}
	if o.Format != "html" && o.Format != "markdown" {
		return fmt.Errorf("--format %q is not supported: use html or markdown", o.Format)
	}
	if o.Lint != "" && !slices.Contains(lint.Profiles, o.Lint) {
		return fmt.Errorf("--lint must be one of %s, not %q", strings.Join(lint.Profiles, ", "), o.Lint)
	}
	return nil
}

// Run reads the CRDs and writes the reference.
func (o *DocsOptions) Run(ctx context.Context) error {
	if err := o.load(); err != nil {
		return err
	}
	crds, err := o.catalog.Named(ctx, o.Types)
	if err != nil {
		return err
	}
	if len(crds) == 0 {
		return errors.New("no CustomResourceDefinitions to document")
	}
	site, err := docs.Build(crds, docs.Options{Sample: sample.YAMLOf(ctx), Lint: o.Lint, KubernetesVersion: o.kube})
	if err != nil {
		return err
	}
	write, index := docs.WriteHTML, "index.html"
	if o.Format == "markdown" {
		write, index = docs.WriteMarkdown, "README.md"
	}
	if _, err := write(site, o.OutputDir, o.Title); err != nil {
		return err
	}
	fmt.Fprintf(o.out, "Wrote the reference of %s: %s\n", report.Plural(len(crds), "CustomResourceDefinition", "CustomResourceDefinitions"), filepath.Join(o.OutputDir, index))
	return nil
}
