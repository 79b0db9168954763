package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/spf13/cobra"
)

// explainFormats are explain's output formats: kubectl's two, then ours.
var explainFormats = []string{explain.Plaintext, explain.PlaintextOpenAPIV2, "detailed", "markdown"}

// ExplainOptions are the options of kubectl crd explain: kubectl's own
// explain output, over the OpenAPI documents of the CRD built on the
// client.
type ExplainOptions struct {
	Recursive  bool
	APIVersion string
	Output     string
	MaxDepth   int

	args   []string
	out    io.Writer
	f      *factory.Factory
	target explain.Target
}

// NewCmdExplain makes kubectl crd explain.
func NewCmdExplain(f *factory.Factory) *cobra.Command {
	o := &ExplainOptions{Output: explain.Plaintext}
	c := &cobra.Command{
		Use:                   "explain TYPE[.FIELD...] [--recursive] [--max-depth N] [--api-version GROUP/VERSION]",
		DisableFlagsInUseLine: true,
		Short:                 "Document a CRD's schema, field by field",
		Long: `Document a custom resource type, or one of its fields, as kubectl explain
does, from the CRD's schema: the OpenAPI document is built on the client
(offline with --crds) with the API server's own builder.`,
		Example: `  kubectl crd explain crontabs
  kubectl crd explain ct.spec --recursive
  kubectl crd explain crontabs.spec.cronSpec --crds examples/crds

  # Also the constraints kubectl explain hides: defaults, bounds, CEL rules...
  kubectl crd explain crontabs.spec -o detailed

  # A reference page for a docs site
  kubectl crd explain crontabs -o markdown > crontab.md`,
		RunE:              runVerb(f, o),
		ValidArgsFunction: completeTypes(f),
	}
	// kubectl explain's flags, and our formats.
	c.Flags().BoolVarP(&o.Recursive, "recursive", "R", false, "Print the fields of fields. Use --max-depth to cap the recursion depth.")
	c.Flags().StringVar(&o.APIVersion, "api-version", "", "Get different explanations for particular API version (API group/version)")
	c.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Format in which to render the schema: plaintext or plaintext-openapiv2 (kubectl's), detailed (plaintext and every field's constraints), or markdown (a reference page).")
	c.Flags().IntVar(&o.MaxDepth, "max-depth", 0, "Maximum recursion depth when printing nested fields with --recursive. 0 means no limit. Requires --recursive when greater than 0.")
	return c
}

// Complete takes the arguments and the output stream.
func (o *ExplainOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.args, o.out, o.f = args, f.Streams.Out, f
	return nil
}

// resolve finds the CRD of the argument, as kubectl explain finds the
// resource, then through the catalog (which warns of a deprecated
// version).
func (o *ExplainOptions) resolve(ctx context.Context) error {
	cat, err := o.f.Catalog(false)
	if err != nil {
		return err
	}
	o.target, err = explain.Resolve(ctx, cat, o.args[0], o.APIVersion)
	return err
}

// Validate checks the arguments as kubectl's explain does, and the
// output format.
func (o *ExplainOptions) Validate() error {
	switch {
	case !slices.Contains(explainFormats, o.Output):
		return fmt.Errorf("--output %q is not supported: use plaintext, plaintext-openapiv2, detailed or markdown", o.Output)
	case o.Output == "markdown" && len(o.args) != 1:
		return errors.New("-o markdown documents one TYPE[.FIELD...]")
	case len(o.args) == 0:
		//lint:ignore ST1005 kubectl's words, as kubectl explain prints them
		return errors.New(`You must specify the type of resource to explain. Use "kubectl crd list" for the types there are.`)
	case len(o.args) > 1:
		//lint:ignore ST1005 kubectl's words, as kubectl explain prints them
		return errors.New("We accept only this format: explain RESOURCE")
	case o.MaxDepth > 0 && !o.Recursive:
		return errors.New("--max-depth requires --recursive")
	case o.MaxDepth < 0:
		return errors.New("--max-depth must be non-negative")
	}
	return nil
}

// Run finds the CRD and prints the documentation: kubectl's (with the
// constraints after it for -o detailed), or a Markdown page.
func (o *ExplainOptions) Run(ctx context.Context) error {
	if err := o.resolve(ctx); err != nil {
		return err
	}
	t := o.target
	if o.Output == "markdown" {
		return explain.WriteMarkdown(o.out, t.CRD, t.GVR.Version, t.Fields)
	}
	if err := explain.PrintKubectl(o.out, t, o.Output, o.Recursive, o.MaxDepth); err != nil || o.Output != "detailed" {
		return err
	}
	root, err := explain.Schema(t.CRD, t.GVR.Version)
	if err != nil {
		return err
	}
	return explain.WriteConstraints(o.out, root, t.Fields, o.Recursive)
}
