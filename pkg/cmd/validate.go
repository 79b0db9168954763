package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// ValidateOptions are the options of kubectl crd validate.
type ValidateOptions struct {
	f *Factory

	Filenames   []string
	Kustomize   string
	Recursive   bool
	Output      string
	Unknown     string
	StrictKinds bool
	SkipKinds   []string
	Old         []string

	catalog   *catalog.Catalog
	builtIn   *builtin.Kinds
	published resolver.SchemaResolver
	skip      func(schema.GroupVersionKind) bool
	namespace string // where objects without one go
	old       validate.OldLookup
	oldCRD    oldCRD
}

// NewCmdValidate makes kubectl crd validate.
func NewCmdValidate(f *Factory) *cobra.Command {
	o := &ValidateOptions{f: f, Output: "text", Unknown: "strict"}
	c := &cobra.Command{
		Use:   "validate (-f PATH... | PATH... | -k DIR)",
		Short: "Check local objects as the API server would, before apply",
		Long: `Check the objects in local files as the API server checks them, with the
server's own code: custom resources (unknown fields, defaults, schema,
metadata, list types, CEL rules), kinds kube-apiserver serves itself
(decoding, defaults, each resource's validation) and CRDs. CRDs come from
the cluster, --crds files, or the input itself. Online, an object that
exists is checked as the update kubectl apply makes of it (--old gives the
old objects from files). Admission and authorization are not run.

Each problem is reported with its file, line and column. Exit status: 0
when every object is valid, 1 when one is invalid, 2 when the input cannot
be read or checked.`,
		Example: `  kubectl crd validate -f examples/objects/invalid --crds examples/crds
  kubectl crd validate -f manifests/ -R -o json
  kubectl crd validate --offline --crds crds/ deploy/*.yaml
  kubectl crd validate -k overlays/prod --offline --crds crds/ -o github

  # The objects as the server would store them: pruned and defaulted
  kubectl crd validate -f crontab.yaml --crds examples/crds -o yaml`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Validate(args); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			if err := o.Complete(); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			return o.Run(contextOf(c))
		},
	}
	c.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "Files or directories of objects to check; - for stdin.")
	c.Flags().StringVarP(&o.Kustomize, "kustomize", "k", "", "Check the objects a kustomization directory builds.")
	c.Flags().BoolVarP(&o.Recursive, "recursive", "R", false, "Read directories given with -f recursively.")
	c.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Output format: "+strings.Join(validate.Formats, ", ")+" (yaml: the valid objects as the server would store them; the report goes to stderr).")
	c.Flags().StringVar(&o.Unknown, "validate", o.Unknown, "Unknown fields: strict (errors), warn (warnings) or ignore.")
	c.Flags().BoolVar(&o.StrictKinds, "strict-kinds", false, "Report objects of kinds that cannot be checked (no CRD defines them) as invalid instead of skipping them.")
	c.Flags().StringSliceVar(&o.SkipKinds, "skip-kinds", nil, "Kinds to skip unchecked, comma-separated: KIND, KIND.GROUP or GROUP/VERSION/KIND (v1/KIND for the core group).")
	c.Flags().BoolVar(&f.NoCluster, "offline", false, "Never contact a cluster: CRDs come from --crds and the input only.")
	c.Flags().StringArrayVar(&o.Old, "old", nil, "Files of the objects as they are now: an object found there is checked as an update of it.")
	return c
}

// Validate checks the flags.
func (o *ValidateOptions) Validate(args []string) error {
	switch {
	case len(args) > 0 && o.Kustomize != "":
		return fmt.Errorf("unexpected arguments %q: -k builds the input, files cannot be added to it", args)
	case len(o.Filenames) == 0 && len(args) == 0 && o.Kustomize == "":
		return fmt.Errorf("no input: name files or directories (with -f or as arguments), or a kustomization with -k")
	case len(o.Filenames) > 0 && o.Kustomize != "":
		return fmt.Errorf("-f and -k cannot be used together")
	case !slices.Contains(validate.Formats, o.Output):
		return fmt.Errorf("--output must be one of %s, not %q", strings.Join(validate.Formats, ", "), o.Output)
	case o.Unknown != "strict" && o.Unknown != "warn" && o.Unknown != "ignore":
		return fmt.Errorf("--validate must be strict, warn or ignore, not %q", o.Unknown)
	}
	skip, err := skipKinds(o.SkipKinds)
	if err != nil {
		return err
	}
	o.skip = skip
	o.Filenames = append(o.Filenames, args...)
	return nil
}

// skipKinds reads --skip-kinds: KIND, KIND.GROUP or GROUP/VERSION/KIND.
func skipKinds(specs []string) (func(schema.GroupVersionKind) bool, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	kinds := map[string]bool{} // Kind
	groupKinds := map[schema.GroupKind]bool{}
	gvks := map[schema.GroupVersionKind]bool{}
	for _, s := range specs {
		switch parts := strings.Split(s, "/"); {
		case s == "" || strings.Contains(s, " "):
			return nil, fmt.Errorf("--skip-kinds: %q is not a kind", s)
		case len(parts) == 3 && parts[0] != "" && parts[1] != "" && parts[2] != "":
			gvks[schema.GroupVersionKind{Group: parts[0], Version: parts[1], Kind: parts[2]}] = true
		case len(parts) == 2 && parts[0] != "" && parts[1] != "":
			gvks[schema.GroupVersionKind{Version: parts[0], Kind: parts[1]}] = true
		case len(parts) == 1:
			if kind, group, ok := strings.Cut(s, "."); ok {
				groupKinds[schema.GroupKind{Group: group, Kind: kind}] = true
			} else {
				kinds[s] = true
			}
		default:
			return nil, fmt.Errorf("--skip-kinds: %q is not KIND, KIND.GROUP or GROUP/VERSION/KIND", s)
		}
	}
	return func(gvk schema.GroupVersionKind) bool {
		return kinds[gvk.Kind] || groupKinds[gvk.GroupKind()] || gvks[gvk]
	}, nil
}

// Complete makes the catalog and says where old objects come from and
// where objects without a namespace go.
func (o *ValidateOptions) Complete() error {
	env, err := checkEnvironment(o.f)
	if err != nil {
		return err
	}
	o.catalog, o.namespace, o.builtIn, o.published = env.Catalog, env.Options.Namespace, env.Options.BuiltIn, env.Options.Published
	o.old, o.oldCRD, err = o.oldLookups(o.namespace)
	return err
}

// checkEnvironment is what validate and lsp check objects with, from the
// factory's flags: the catalog of CRDs, kube-apiserver's own kinds (online,
// the versions the cluster serves), the schemas the cluster publishes for
// other kinds, and the namespace objects without one go to.
func checkEnvironment(f *Factory) (*validate.Environment, error) {
	if err := f.UseKubernetesVersion(); err != nil {
		return nil, err
	}
	cat, err := f.Catalog()
	if err != nil {
		return nil, err
	}
	env := &validate.Environment{Catalog: cat, Options: validate.Options{Namespace: "default"}}
	if !f.NoCluster {
		if ns, _, err := f.ConfigFlags.ToRawKubeConfigLoader().Namespace(); err == nil && ns != "" {
			env.Options.Namespace = ns
		}
	}
	if env.Options.BuiltIn, err = builtInKinds(f, cat); err != nil {
		return nil, err
	}
	if env.Options.Published, err = publishedSchemas(f); err != nil {
		return nil, err
	}
	return env, nil
}

// publishedSchemas reads the OpenAPI schemas the cluster publishes, for
// the kinds that are neither built in nor defined by a CRD; nil offline.
func publishedSchemas(f *Factory) (resolver.SchemaResolver, error) {
	if f.Offline() {
		return nil, nil
	}
	if _, err := f.RESTConfig(); err != nil {
		return nil, nil // the catalog reports the cluster's error where an answer needs it
	}
	dc, err := f.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		return nil, err
	}
	return &resolver.ClientDiscoveryResolver{Discovery: dc}, nil
}

// builtInKinds makes the checker of kube-apiserver's own kinds: online,
// the versions the cluster serves and its namespaces; offline (or with no
// cluster configured at all), kube-apiserver's defaults.
func builtInKinds(f *Factory, cat *catalog.Catalog) (*builtin.Kinds, error) {
	if f.Offline() {
		return builtin.New(nil, nil)
	}
	config, err := f.RESTConfig()
	switch {
	case errors.Is(err, errNoCluster):
		return builtin.New(nil, nil)
	case err != nil:
		// The cluster that would say what it serves cannot be asked.
		return builtin.New(func(schema.GroupVersionKind) (bool, error) { return false, err }, nil)
	}
	client, err := corev1client.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return builtin.New(cat.Serves, client.Namespaces())
}

// Run reads the input, validates every object and prints the report as
// results come.
func (o *ValidateOptions) Run(ctx context.Context) error {
	input, err := o.read()
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	crds, err := validate.InputCRDs(input)
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	if err := o.catalog.AddInput(crds...); err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	printer := validate.NewPrinter(o.f.Streams.Out, o.f.Streams.ErrOut, o.Output, Version, isTerminal(o.f.Streams.Out))
	opts := validate.Options{Unknown: validate.UnknownFields(o.Unknown), StrictKinds: o.StrictKinds, BuiltIn: o.builtIn, Published: o.published, Skip: o.skip, Keep: o.Output == "yaml",
		Namespace: o.namespace, Old: o.old, OldCRD: o.oldCRD, Emit: printer.Add}
	report, err := validate.Documents(ctx, input, o.catalog, opts)
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	s := report.Summary
	if s == (validate.Summary{}) {
		return &ExitError{Code: 2, Err: errors.New("no objects passed to validate")}
	}
	if err := printer.Finish(s); err != nil {
		return err
	}
	switch {
	case s.Errors > 0:
		return &ExitError{Code: 2}
	case s.Invalid > 0:
		return &ExitError{Code: 1}
	}
	return nil
}

// read opens the -f files (or builds the -k kustomization's output).
func (o *ValidateOptions) read() (*manifest.Input, error) {
	if o.Kustomize == "" {
		return manifest.OpenPaths(o.Filenames, o.Recursive, o.f.Streams.In)
	}
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionLegacy
	objs, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), o.Kustomize)
	if err != nil {
		return nil, fmt.Errorf("building the kustomization %s: %w", o.Kustomize, err)
	}
	data, err := objs.AsYaml()
	if err != nil {
		return nil, err
	}
	return manifest.InputOf(o.Kustomize+" (kustomize build)", data), nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}
