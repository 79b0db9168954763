package cmd

import (
	"context"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/sample"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// SampleOptions are the options of kubectl crd sample.
type SampleOptions struct {
	f          *factory.Factory // the sources and the cluster, read by Run
	APIVersion string
	Full       bool
	Comments   bool
	Output     string

	args        []string
	catalog     *catalog.Catalog
	kube        *version.Version
	out, errOut io.Writer
}

// NewCmdSample makes kubectl crd sample.
func NewCmdSample(f *factory.Factory) *cobra.Command {
	o := &SampleOptions{}
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
		RunE:              runVerb(f, o),
		ValidArgsFunction: completeTypes(f),
	}
	c.Flags().StringVar(&o.APIVersion, "api-version", "", "The version of the type to sample (GROUP/VERSION or VERSION); the preferred version if empty.")
	c.Flags().BoolVar(&o.Full, "full", false, "Fill every field (one branch of each choice), not only the required ones.")
	c.Flags().BoolVar(&o.Comments, "comments", false, "Write each field's description and constraints as YAML comments.")
	c.Flags().StringVarP(&o.Output, "output", "o", "yaml", "Output format: yaml or json.")
	return c
}

// Complete makes the catalog; what the server accepts is its version's
// answer.
func (o *SampleOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.args, o.out, o.errOut, o.f = args, f.Streams.Out, f.Streams.ErrOut, f
	return nil
}

// load resolves the Kubernetes version (the sample is checked as it
// checks it) and the catalog.
func (o *SampleOptions) load() error {
	var err error
	if o.kube, err = o.f.AnswerAs(false); err != nil {
		return err
	}
	o.catalog, err = o.f.Catalog(false)
	return err
}

// Validate checks the arguments and flags.
func (o *SampleOptions) Validate() error {
	if len(o.args) != 1 {
		return fmt.Errorf("sample takes one TYPE, not %d arguments", len(o.args))
	}
	if o.Output != "yaml" && o.Output != "json" {
		return fmt.Errorf("--output %q is not supported: use yaml or json", o.Output)
	}
	if o.APIVersion != "" {
		if _, err := schema.ParseGroupVersion(o.APIVersion); err != nil {
			return fmt.Errorf("--api-version: %w", err)
		}
	}
	return nil
}

// Run resolves TYPE, makes the sample and prints it.
func (o *SampleOptions) Run(ctx context.Context) error {
	if err := o.load(); err != nil {
		return err
	}
	r, err := o.catalog.One(ctx, o.args[0])
	if err != nil {
		return err
	}
	crd, version := r.CRD.CustomResourceDefinition, r.Mapping.GroupVersionKind.Version
	if o.APIVersion != "" {
		gv, _ := schema.ParseGroupVersion(o.APIVersion)
		if gv.Group != "" && gv.Group != crd.Spec.Group {
			return &UsageError{Err: fmt.Errorf("--api-version %s: %s is in the group %s", o.APIVersion, crd.Spec.Names.Kind, crd.Spec.Group)}
		}
		if v := catalog.VersionNamed(crd, gv.Version); v == nil || !v.Served {
			return &UsageError{Err: fmt.Errorf("--api-version %s: CustomResourceDefinition %s serves no version %q", o.APIVersion, crd.Name, gv.Version)}
		}
		version = gv.Version
	}
	out, err := sample.Render(ctx, crd, version, sample.Options{Full: o.Full}, o.Output, o.Comments)
	if err != nil {
		return err
	}
	if _, err := o.out.Write(out.Data); err != nil {
		return err
	}
	for _, l := range out.LeftOut {
		fmt.Fprintf(o.errOut, "note: left out of the full sample: %s\n", l)
	}
	for _, msg := range out.Refused {
		fmt.Fprintf(o.errOut, "error: the server (Kubernetes %s) refuses this sample: %s\n", o.kube, msg)
	}
	if len(out.Refused) > 0 {
		return findings
	}
	return nil
}
