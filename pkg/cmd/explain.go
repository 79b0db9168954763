package cmd

import (
	"context"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/spf13/cobra"
)

// ExplainOptions are the options of kubectl crd explain.
type ExplainOptions struct {
	f *Factory

	TypeArg   string
	FieldPath []string

	catalog *catalog.Catalog
}

// NewCmdExplain makes kubectl crd explain.
func NewCmdExplain(f *Factory) *cobra.Command {
	o := &ExplainOptions{f: f}
	return &cobra.Command{
		Use:   "explain TYPE[.FIELD...]",
		Short: "Document a CRD's schema, field by field",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
	}
}

// Complete splits the argument into the type and the field path and builds
// the catalog.
func (o *ExplainOptions) Complete(args []string) error {
	parts := strings.Split(args[0], ".")
	o.TypeArg, o.FieldPath = parts[0], parts[1:]
	var err error
	o.catalog, err = o.f.Catalog()
	return err
}

// Run resolves the type; documentation comes with the explain issue.
func (o *ExplainOptions) Run(ctx context.Context) error {
	if _, err := o.catalog.Resolve(ctx, o.TypeArg); err != nil {
		return err
	}
	return notImplemented("explain")
}
