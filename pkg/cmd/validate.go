package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ValidateOptions are the options of kubectl crd validate.
type ValidateOptions struct {
	f *Factory

	Filenames []string
	Recursive bool
	Output    string
	Unknown   string
}

// NewCmdValidate makes kubectl crd validate.
func NewCmdValidate(f *Factory) *cobra.Command {
	o := &ValidateOptions{f: f, Output: "text", Unknown: "strict"}
	c := &cobra.Command{
		Use:   "validate -f PATH",
		Short: "Check local objects as the API server would, before apply",
		Long: `Check custom resources in local files as the API server checks them on
create, with the server's own code: unknown fields, defaults, the schema,
metadata, embedded resources, list types and CEL rules. CRDs come from the
cluster, or with --crds from files, and CRDs in the input itself are used for
the objects beside them. Each problem is reported with its file, line and
column. Exit status: 0 when every object is valid (or skipped), 1 when one is
invalid, 2 when the input cannot be read.`,
		Example: `  kubectl crd validate -f examples/objects/invalid --crds examples/crds
  kubectl crd validate -f manifests/ -R -o json`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Validate(args); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			return o.Run(c.Context())
		},
	}
	c.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "Files or directories of objects to check; - for stdin.")
	c.Flags().BoolVarP(&o.Recursive, "recursive", "R", false, "Read directories given with -f recursively.")
	c.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Output format: text or json.")
	c.Flags().StringVar(&o.Unknown, "validate", o.Unknown, "Unknown fields: strict (errors), warn (warnings) or ignore.")
	return c
}

// Validate checks the flags.
func (o *ValidateOptions) Validate(args []string) error {
	switch {
	case len(args) > 0:
		return fmt.Errorf("unexpected arguments %q: name files with -f", args)
	case len(o.Filenames) == 0:
		return fmt.Errorf("no input: name files or directories with -f")
	case o.Output != "text" && o.Output != "json":
		return fmt.Errorf("--output must be text or json, not %q", o.Output)
	case o.Unknown != "strict" && o.Unknown != "warn" && o.Unknown != "ignore":
		return fmt.Errorf("--validate must be strict, warn or ignore, not %q", o.Unknown)
	}
	return nil
}

// Run reads the input, validates every object and prints the report.
func (o *ValidateOptions) Run(ctx context.Context) error {
	if ctx == nil {
		ctx = context.Background()
	}
	docs, err := manifest.ReadPaths(o.Filenames, o.Recursive, o.f.Streams.In)
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	// CRDs in the input serve the objects beside them, as kubectl apply
	// would create them first.
	local := map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition{}
	var objects []manifest.Document
	for _, d := range docs {
		if !catalog.IsCRD(d.TypeMeta()) {
			objects = append(objects, d)
			continue
		}
		crd, err := catalog.DecodeCRD(d)
		if err != nil {
			return &ExitError{Code: 2, Err: err}
		}
		local[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = crd.CustomResourceDefinition
	}
	cat, err := o.f.Catalog()
	if err != nil && len(local) == 0 {
		return err
	}
	lookup := func(ctx context.Context, gvk schema.GroupVersionKind) (*apiextensionsv1.CustomResourceDefinition, error) {
		if crd := local[gvk.GroupKind()]; crd != nil {
			return crd, nil
		}
		if cat == nil || gvk.Group == "" {
			return nil, nil
		}
		res, err := cat.Resolve(ctx, gvk.Kind+"."+gvk.Version+"."+gvk.Group)
		var unknown *catalog.UnknownTypeError
		switch {
		case err == nil && len(res) == 1 && res[0].CRD != nil:
			return res[0].CRD.CustomResourceDefinition, nil
		case err == nil, apierrors.IsNotFound(err), errors.As(err, &unknown):
			return nil, nil
		}
		return nil, err
	}
	report := validate.Documents(ctx, objects, lookup, validate.UnknownFields(o.Unknown))
	if o.Output == "json" {
		if err := report.WriteJSON(o.f.Streams.Out); err != nil {
			return err
		}
	} else {
		report.WriteText(o.f.Streams.Out)
	}
	if report.Summary.Invalid > 0 || report.Summary.Errors > 0 {
		return &ExitError{Code: 1}
	}
	return nil
}
