package cmd

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"github.com/kubectl-crd/kubectl-crd/pkg/sample"
	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SampleOptions are the options of kubectl crd sample.
type SampleOptions struct {
	f          *Factory
	APIVersion string
	Full       bool
	Comments   bool
	Output     string
}

// NewCmdSample makes kubectl crd sample.
func NewCmdSample(f *Factory) *cobra.Command {
	o := &SampleOptions{f: f}
	c := &cobra.Command{
		Use:   "sample TYPE [--api-version GROUP/VERSION] [--full] [--comments] [-o yaml|json]",
		Short: "Print an object of a custom resource type that the API server accepts",
		Long: `Print an object of a custom resource type (at its preferred version, or
--api-version) that the API server takes as a create: metadata.name and the
fields the schema requires after defaulting, with values that meet their
type, format, enum, pattern, bounds, lengths, item counts and list types.
--full fills every field instead, one branch of each choice; status is left
to the controller. Each sample is checked with the server's own validation,
CEL rules included, and repaired where a rule refuses it (an optional field
left out or put in, another value or branch); one the server would still
refuse is printed with the refusal in a comment, and the exit code is 1.`,
		Example: `  kubectl crd sample crontabs --crds examples/crds
  kubectl crd sample certificates.cert-manager.io --full --comments > certificate.yaml
  kubectl crd sample ct --api-version stable.example.com/v1beta1 -o json`,
		Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if o.Output != "yaml" && o.Output != "json" {
				return &ExitError{Code: 2, Err: fmt.Errorf("--output %q is not supported: use yaml or json", o.Output)}
			}
			return o.Run(contextOf(c), args[0])
		},
		ValidArgsFunction: completeTypes(f),
	}
	c.Flags().StringVar(&o.APIVersion, "api-version", "", "The version of the type to sample (GROUP/VERSION or VERSION); the preferred version if empty.")
	c.Flags().BoolVar(&o.Full, "full", false, "Fill every field (one branch of each choice), not only the required ones.")
	c.Flags().BoolVar(&o.Comments, "comments", false, "Write each field's description and constraints as YAML comments.")
	c.Flags().StringVarP(&o.Output, "output", "o", "yaml", "Output format: yaml or json.")
	return c
}

// Run resolves TYPE, makes the sample and prints it.
func (o *SampleOptions) Run(ctx context.Context, typ string) error {
	crd, version, err := o.target(ctx, typ)
	if err != nil {
		return err
	}
	s, err := sample.Make(ctx, crd, version, sample.Options{Full: o.Full})
	if err != nil {
		return err
	}
	var refused []string
	for _, c := range s.Refused {
		refused = append(refused, fmt.Sprintf("%s: %s", c.Field, c.Message))
	}
	out := o.f.Streams.Out
	if o.Output == "json" {
		data, err := json.MarshalIndent(s.Object, "", "    ")
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%s\n", data)
	} else {
		root, err := explain.Schema(crd, version)
		if err != nil {
			return err
		}
		data, err := sample.YAML(s.Object, root, o.Comments, refused)
		if err != nil {
			return err
		}
		if _, err := out.Write(data); err != nil {
			return err
		}
	}
	if len(refused) > 0 {
		for _, r := range refused {
			fmt.Fprintf(o.f.Streams.ErrOut, "error: the server refuses this sample: %s\n", r)
		}
		return &ExitError{Code: 1}
	}
	return nil
}

// target resolves TYPE (as get does) to one CRD and the version to
// sample: --api-version's, or the resolved (preferred) one.
func (o *SampleOptions) target(ctx context.Context, typ string) (*apiextensionsv1.CustomResourceDefinition, string, error) {
	// What the server accepts is its version's answer.
	if err := o.f.UseKubernetesVersion(); err != nil {
		return nil, "", err
	}
	cat, err := o.f.Catalog()
	if err != nil {
		return nil, "", err
	}
	res, err := cat.Resolve(ctx, typ)
	if err != nil {
		return nil, "", err
	}
	if len(res) != 1 {
		return nil, "", &ExitError{Code: 2, Err: fmt.Errorf("%q names %d types: name one", typ, len(res))}
	}
	if res[0].CRD == nil {
		return nil, "", fmt.Errorf("cannot read the CustomResourceDefinition of %q", typ)
	}
	crd, version := res[0].CRD.CustomResourceDefinition, res[0].Mapping.GroupVersionKind.Version
	if o.APIVersion != "" {
		gv, err := schema.ParseGroupVersion(o.APIVersion)
		if err != nil {
			return nil, "", &ExitError{Code: 2, Err: fmt.Errorf("--api-version: %w", err)}
		}
		if gv.Group != "" && gv.Group != crd.Spec.Group {
			return nil, "", &ExitError{Code: 2, Err: fmt.Errorf("--api-version %s: %s is in the group %s", o.APIVersion, crd.Spec.Names.Kind, crd.Spec.Group)}
		}
		v := catalog.VersionNamed(crd, gv.Version)
		if v == nil || !v.Served {
			return nil, "", &ExitError{Code: 2, Err: fmt.Errorf("--api-version %s: CustomResourceDefinition %s serves no version %q", o.APIVersion, crd.Name, gv.Version)}
		}
		version = gv.Version
	}
	return crd, version, nil
}
