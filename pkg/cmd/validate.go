package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/spf13/cobra"
	"golang.org/x/term"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
)

// ValidateOptions are the options of kubectl crd validate.
type ValidateOptions struct {
	f           *factory.Factory // the sources and the cluster, read by Run
	Filenames   []string
	Kustomize   string
	Recursive   bool
	Output      string
	Unknown     string
	StrictKinds bool
	SkipKinds   []string
	Old         []string
	Replace     bool
	Offline     bool
	AllowSkip   bool
	Policies    []string
	NoPolicies  bool
	// RequirePolicies: the cluster's policies that cannot be read are an
	// error, not a notice.
	RequirePolicies bool

	args        []string
	sources     manifest.Sources
	out, errOut io.Writer
	colour      bool
	kube        *version.Version
	env         *validate.Environment
	skip        func(schema.GroupVersionKind) bool
	skipErr     error
}

// NewCmdValidate makes kubectl crd validate.
func NewCmdValidate(f *factory.Factory) *cobra.Command {
	o := &ValidateOptions{Output: "text", Unknown: "strict"}
	c := &cobra.Command{
		Use:   "validate (-f PATH... | PATH... | -k DIR)",
		Short: "Check local objects as the API server would, before apply",
		Long: `Check the objects in local files as the API server checks them, with the
server's own code: custom resources (schema, defaults, CEL rules), kinds
kube-apiserver serves itself and CRDs, and admission policies (--policies).
CRDs come from the cluster, --crds files, or the input itself. Online, an
object that exists is checked as the update kubectl apply makes of it
(--old gives the old objects from files; --replace checks a PUT).

Each problem is reported with its file, line and column. Exit status: 0
when every object is valid, 1 when one is invalid, 2 when the input cannot
be read or checked.`,
		Example: `  kubectl crd validate -f examples/objects/invalid --crds examples/crds
  kubectl crd validate -k overlays/prod --offline --crds crds/ -o github

  # The objects as the server would store them: pruned and defaulted
  kubectl crd validate -f crontab.yaml --crds examples/crds -o yaml

  # As admission policies answer, sent as a user
  kubectl crd validate -f deploy/ --crds crds/ --policies policies/ --as jane --as-group dev`,
		RunE: runVerb(f, o),
	}
	c.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "Files, directories, URLs or git:REV:PATH of objects to check; - for stdin.")
	c.Flags().StringVarP(&o.Kustomize, "kustomize", "k", "", "Check the objects a kustomization directory builds.")
	c.Flags().BoolVarP(&o.Recursive, "recursive", "R", false, "Read directories given with -f recursively.")
	c.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Output format: "+strings.Join(validate.Formats, ", ")+" (yaml: the valid objects as the server would store them; the report goes to stderr).")
	c.Flags().StringVar(&o.Unknown, "validate", o.Unknown, "Unknown fields: strict (errors), warn (warnings) or ignore.")
	c.Flags().BoolVar(&o.StrictKinds, "strict-kinds", false, "Report objects of kinds that cannot be checked (no CRD defines them) as invalid instead of skipping them.")
	c.Flags().StringSliceVar(&o.SkipKinds, "skip-kinds", nil, "Kinds to skip unchecked, comma-separated: KIND, KIND.GROUP or GROUP/VERSION/KIND (v1/KIND for the core group).")
	c.Flags().BoolVar(&o.Offline, "offline", false, "Never contact a cluster: CRDs come from --crds and the input only.")
	c.Flags().BoolVar(&o.AllowSkip, "allow-skip-all", false, "Exit 0 when every object was skipped (by default that is an error: nothing was checked).")
	c.Flags().StringArrayVar(&o.Old, "old", nil, "Files, directories, URLs or git:REV:PATH of the objects as they are now: an object found there is checked as an update of it.")
	c.Flags().StringArrayVar(&o.Policies, "policies", nil, "Files, directories, URLs or git:REV:PATH of admission policies, their bindings, params and namespaces: objects are checked as admission answers with them (repeatable; - for stdin).")
	c.Flags().BoolVar(&o.NoPolicies, "no-policies", false, "Do not run admission policies.")
	c.Flags().BoolVar(&o.RequirePolicies, "require-policies", false, "Exit 2 when the cluster's admission policies cannot be read (by default the objects are checked without admission, and the report says so).")
	c.Flags().BoolVar(&o.Replace, "replace", false, "Check an object that exists as kubectl replace updates it (the file is the whole new object, a PUT), not as kubectl apply patches it.")
	return c
}

// Complete takes the arguments as files and makes the environment the
// objects are checked in: the catalog, kube-apiserver's own kinds, the
// cluster's published schemas, where old objects come from and where
// objects without a namespace go.
func (o *ValidateOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.args = args
	o.sources, o.out, o.errOut, o.colour = f.Sources(), f.Streams.Out, f.Streams.ErrOut, isTerminal(f.Streams.Out)
	o.skip, o.skipErr = validate.SkipKinds(o.SkipKinds)
	o.f = f
	return nil
}

// Validate checks the flags.
func (o *ValidateOptions) Validate() error {
	switch {
	case len(o.args) > 0 && o.Kustomize != "":
		return fmt.Errorf("unexpected arguments %q: -k builds the input, files cannot be added to it", o.args)
	case len(o.Filenames) == 0 && len(o.args) == 0 && o.Kustomize == "":
		return fmt.Errorf("no input: name files or directories (with -f or as arguments), or a kustomization with -k")
	case len(o.Filenames) > 0 && o.Kustomize != "":
		return fmt.Errorf("-f and -k cannot be used together")
	case !slices.Contains(validate.Formats, o.Output):
		return fmt.Errorf("--output must be one of %s, not %q", strings.Join(validate.Formats, ", "), o.Output)
	case o.Unknown != "strict" && o.Unknown != "warn" && o.Unknown != "ignore":
		return fmt.Errorf("--validate must be strict, warn or ignore, not %q", o.Unknown)
	case o.NoPolicies && len(o.Policies) > 0:
		return fmt.Errorf("--policies and --no-policies cannot be used together")
	case o.NoPolicies && o.RequirePolicies:
		return fmt.Errorf("--require-policies and --no-policies cannot be used together")
	case o.Replace && o.Offline && len(o.Old) == 0:
		return fmt.Errorf("--replace checks updates of objects that exist: offline, name them with --old")
	}
	return o.skipErr
}

// Run reads the input, validates every object and prints the report as
// results come.
func (o *ValidateOptions) Run(ctx context.Context) error {
	var err error
	o.f.NoCluster = o.Offline
	if o.env, o.kube, err = o.f.Environment(o.Offline, o.Old); err != nil {
		return err
	}
	input, err := o.read()
	if err != nil {
		return err
	}
	pipeline, err := validate.NewPipeline(o.env.Catalog, input)
	if err != nil {
		return err
	}
	admission, err := o.admission(ctx, pipeline)
	if err != nil {
		return err
	}
	defer admission.Chain.Close()
	printer := validate.NewPrinter(o.out, o.errOut, o.Output, Version, o.kube, o.colour)
	printer.NotChecked(admission.NotChecked)
	opts := o.env.Options
	opts.Unknown, opts.StrictKinds, opts.Skip, opts.Keep, opts.Emit = validate.UnknownFields(o.Unknown), o.StrictKinds, o.skip, o.Output == "yaml", printer.Add
	opts.Replace, opts.Admission = o.Replace, admission.Chain
	report, err := pipeline.Check(ctx, opts)
	if err != nil {
		return err
	}
	s := report.Summary
	if s == (validate.Summary{}) {
		return errors.New("no objects passed to validate")
	}
	if err := printer.Finish(s); err != nil {
		return err
	}
	switch {
	case s.Errors > 0:
		return &ExitError{Code: 2}
	case s.Invalid > 0:
		return findings
	case s.Valid == 0 && !o.AllowSkip:
		// A green run must mean something was checked.
		return errors.New("nothing was checked: every object was skipped (no CRD defines its kind, or --skip-kinds names it); pass --crds or a cluster, or --allow-skip-all to accept that")
	}
	return nil
}

// admission sets admission up: the policies of --policies, else online
// the cluster's (none with --no-policies, or offline without
// --policies), with the input's Namespaces and CRDs as kubectl apply
// would leave them. The cluster's policies that cannot be read are left
// out, said once and in the report, unless --require-policies.
func (o *ValidateOptions) admission(ctx context.Context, p *validate.Pipeline) (validate.Admission, error) {
	a, err := o.env.SetUpAdmission(ctx, validate.AdmissionSetting{Policies: o.Policies, Sources: o.sources, Off: o.NoPolicies,
		Require: o.RequirePolicies, Input: p, User: o.f.User(), Warn: o.f.Warn})
	var files *validate.PolicyFilesError
	if errors.As(err, &files) {
		return a, &factory.FlagError{Flag: "--policies", Err: files.Err}
	}
	if a.NotChecked != "" {
		o.f.Warn(a.NotChecked)
	}
	return a, err
}

// read opens the -f files and arguments, or builds the -k kustomization.
func (o *ValidateOptions) read() (*manifest.Input, error) {
	if o.Kustomize != "" {
		input, err := manifest.Kustomization(o.Kustomize)
		return input, err
	}
	input, err := manifest.OpenPaths(append(o.Filenames, o.args...), o.Recursive, o.sources)
	if err != nil {
		return nil, &factory.FlagError{Flag: "-f", Err: err}
	}
	return input, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(interface{ Fd() uintptr })
	return ok && term.IsTerminal(int(f.Fd()))
}
