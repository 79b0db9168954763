package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/version"
)

// CostOptions are the options of kubectl crd cost.
type CostOptions struct {
	f         *factory.Factory // the sources and the cluster, read by Run
	Filenames []string
	Output    string
	All       bool

	types   []string
	sources manifest.Sources
	out     io.Writer
	kube    *version.Version
	catalog *catalog.Catalog
}

// NewCmdCost makes kubectl crd cost.
func NewCmdCost(f *factory.Factory) *cobra.Command {
	o := &CostOptions{Output: "text"}
	c := &cobra.Command{
		Use:   "cost [TYPE... | -f PATH...] [-o text|json|markdown]",
		Short: "Show each CEL rule's estimated cost against the API server's limits, and what drives it",
		Long: `Show, for each version of each CRD, every x-kubernetes-validations rule's
estimated cost as the API server computes it when it is given the CRD (its
compiler and cost estimator, in the CEL environment of the Kubernetes
version answered as): the cost against the per-rule limit, how many times
the rule can run per object, its share of the per-CRD limit, the fields
without maxItems, maxProperties or maxLength that drive it, with the bound
that makes an expensive rule fit, and the version's total. CRDs come from
-f files, or the TYPEs (all CRDs without them) of --crds or the cluster.

Exit status: 0 when every rule and total fits, 1 when the server would
refuse a CRD for its rules' cost, 2 when the input cannot be read.`,
		Example: `  kubectl crd cost -f examples/cost/hosts.yaml
  kubectl crd cost certificates.cert-manager.io -o json
  kubectl crd cost -f config/crd/bases -o markdown > cost.md`,
		RunE:              runVerb(f, o),
		ValidArgsFunction: completeTypes(f),
	}
	c.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "Files, directories, URLs, git:REV:PATH or Helm charts of CRDs to estimate (- for stdin).")
	c.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Output format: "+strings.Join(cost.Formats, ", ")+".")
	c.Flags().BoolVar(&o.All, "all", false, "List every rule in text and markdown, not only those at 1% of a limit or more (json lists all).")
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(cost.Formats, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// Complete makes the catalog; the estimates are those of the Kubernetes
// version answered as (its CEL libraries).
func (o *CostOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.types, o.sources, o.out, o.f = args, f.Sources(), f.Streams.Out, f
	return nil
}

// load resolves the Kubernetes version and, without -f, the catalog.
func (o *CostOptions) load() error {
	var err error
	if o.kube, err = o.f.AnswerAs(len(o.Filenames) > 0); err != nil {
		return err
	}
	if len(o.Filenames) == 0 {
		o.catalog, err = o.f.Catalog(false)
	}
	return err
}

// Validate checks the arguments and flags.
func (o *CostOptions) Validate() error {
	switch {
	case len(o.Filenames) > 0 && len(o.types) > 0:
		return fmt.Errorf("unexpected arguments %q: -f names the CRDs", o.types)
	case !slices.Contains(cost.Formats, o.Output):
		return fmt.Errorf("--output must be one of %s, not %q", strings.Join(cost.Formats, ", "), o.Output)
	}
	return nil
}

// Run estimates and reports.
func (o *CostOptions) Run(ctx context.Context) error {
	if err := o.load(); err != nil {
		return err
	}
	crds, err := o.crds(ctx)
	if err != nil {
		return err
	}
	if len(crds) == 0 {
		return errors.New("no CustomResourceDefinitions to estimate")
	}
	r := cost.Report{KubernetesVersion: kubeversion.OrNewest(o.kube).String()}
	for _, crd := range crds {
		e, err := cost.EstimateWith(crd, cost.Options{Headroom: true})
		if err != nil {
			return fmt.Errorf("%s: %w", crd.Name, err)
		}
		r.CRDs = append(r.CRDs, e)
	}
	if err := cost.Write(o.out, o.Output, r, o.All); err != nil {
		return err
	}
	if r.Over() {
		return findings
	}
	return nil
}

// crds are the CRDs of -f, or those the TYPEs name.
func (o *CostOptions) crds(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	if len(o.Filenames) == 0 {
		return o.catalog.Named(ctx, o.types)
	}
	docs, err := manifest.ReadPaths(o.Filenames, true, o.sources)
	if err != nil {
		return nil, &factory.FlagError{Flag: "-f", Err: err}
	}
	input, _, err := catalog.Split(docs)
	if err != nil {
		return nil, err
	}
	var out []*apiextensionsv1.CustomResourceDefinition
	for _, c := range input {
		out = append(out, c.CustomResourceDefinition)
	}
	return out, nil
}
