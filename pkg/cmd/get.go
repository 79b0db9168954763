package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/spf13/cobra"
)

// GetOptions are the options of kubectl crd get.
type GetOptions struct {
	f *Factory

	TypeArg string
	Names   []string

	catalog *catalog.Catalog
}

// NewCmdGet makes kubectl crd get.
func NewCmdGet(f *Factory) *cobra.Command {
	o := &GetOptions{f: f}
	return &cobra.Command{
		Use:   "get TYPE[,TYPE...] [NAME...]",
		Short: "List custom resources with their CRD's printer columns",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run(c.Context())
		},
	}
}

// Complete reads the arguments and builds the catalog.
func (o *GetOptions) Complete(args []string) error {
	o.TypeArg, o.Names = args[0], args[1:]
	if t, name, ok := strings.Cut(o.TypeArg, "/"); ok {
		o.TypeArg, o.Names = t, append([]string{name}, o.Names...)
	}
	var err error
	o.catalog, err = o.f.Catalog()
	return err
}

// Validate checks the options.
func (o *GetOptions) Validate() error {
	if o.TypeArg == "" {
		return errors.New("a resource type is required")
	}
	return nil
}

// Run resolves the types; listing comes with the get issue.
func (o *GetOptions) Run(ctx context.Context) error {
	if _, err := o.catalog.Resolve(ctx, o.TypeArg); err != nil {
		return err
	}
	return notImplemented("get")
}

func notImplemented(verb string) error {
	return fmt.Errorf("kubectl crd %s is not implemented yet", verb)
}
