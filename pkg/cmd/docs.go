package cmd

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/kubectl-crd/kubectl-crd/pkg/docs"
	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"github.com/kubectl-crd/kubectl-crd/pkg/sample"
	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// DocsOptions are the options of kubectl crd docs.
type DocsOptions struct {
	f         *Factory
	Types     []string
	OutputDir string
	Format    string
	Title     string
}

// NewCmdDocs makes kubectl crd docs.
func NewCmdDocs(f *Factory) *cobra.Command {
	o := &DocsOptions{f: f}
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
		RunE: func(c *cobra.Command, args []string) error {
			o.Types = args
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(contextOf(c))
		},
		ValidArgsFunction: completeTypes(f),
	}
	c.Flags().StringVar(&o.OutputDir, "output-dir", "", "Directory to write the reference into (made if missing).")
	c.Flags().StringVar(&o.Format, "format", "html", "What to write: html (a site) or markdown (a file per CRD and README.md).")
	c.Flags().StringVar(&o.Title, "title", "CustomResourceDefinitions", "Title of the index page.")
	return c
}

// Validate checks the flags.
func (o *DocsOptions) Validate() error {
	if o.OutputDir == "" {
		return &ExitError{Code: 2, Err: fmt.Errorf("--output-dir is required: the directory to write the reference into")}
	}
	if o.Format != "html" && o.Format != "markdown" {
		return &ExitError{Code: 2, Err: fmt.Errorf("--format %q is not supported: use html or markdown", o.Format)}
	}
	return nil
}

// Run reads the CRDs and writes the reference.
func (o *DocsOptions) Run(ctx context.Context) error {
	// The samples are objects the cluster's version accepts.
	if err := o.f.UseKubernetesVersion(); err != nil {
		return err
	}
	cat, err := o.f.Catalog()
	if err != nil {
		return err
	}
	crds, err := namedCRDs(ctx, cat, o.Types)
	if err != nil {
		return err
	}
	if len(crds) == 0 {
		return fmt.Errorf("no CustomResourceDefinitions to document")
	}
	site, err := docs.Build(crds, sampleYAML(ctx))
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
	noun := "CustomResourceDefinitions"
	if len(crds) == 1 {
		noun = "CustomResourceDefinition"
	}
	fmt.Fprintf(o.f.Streams.Out, "Wrote the reference of %d %s: %s\n", len(crds), noun, filepath.Join(o.OutputDir, index))
	return nil
}

// sampleYAML makes the samples of a version (kubectl crd sample's) for its
// page, with the server's refusal in a comment where it has one.
func sampleYAML(ctx context.Context) docs.Sampler {
	return func(crd *apiextensionsv1.CustomResourceDefinition, version string, full bool) (string, error) {
		s, err := sample.Make(ctx, crd, version, sample.Options{Full: full})
		if err != nil {
			return "", err
		}
		root, err := explain.Schema(crd, version)
		if err != nil {
			return "", err
		}
		var refused []string
		for _, c := range s.Refused {
			refused = append(refused, fmt.Sprintf("%s: %s", c.Field, c.Message))
		}
		data, err := sample.YAML(s.Object, root, false, refused)
		return string(data), err
	}
}
