package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/internal/memo"
	"github.com/kubectl-crd/kubectl-crd/internal/prefetch"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/spf13/cobra"
	"golang.org/x/term"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	Offline     bool
	Old         []string
}

// NewCmdValidate makes kubectl crd validate.
func NewCmdValidate(f *Factory) *cobra.Command {
	o := &ValidateOptions{f: f, Output: "text", Unknown: "strict"}
	c := &cobra.Command{
		Use:   "validate (-f PATH | -k DIR)",
		Short: "Check local objects as the API server would, before apply",
		Long: `Check custom resources in local files as the API server checks them, with
the server's own code: unknown fields, defaults, the schema, metadata,
embedded resources, list types and CEL rules. CRDs come from the cluster, or
with --crds from files, and CRDs in the input itself are used for the
objects beside them (and are checked as the server checks a new CRD).

Online, an object that exists is checked as an update of the live object
(transition rules with oldSelf, validation ratcheting); --old gives the old
objects from files instead. Each problem is reported with its file, line
and column. Exit status: 0 when every object is valid (or skipped), 1 when
one is invalid, 2 when the input cannot be read or checked.`,
		Example: `  kubectl crd validate -f examples/objects/invalid --crds examples/crds
  kubectl crd validate -f manifests/ -R -o json
  kubectl crd validate -k overlays/prod --offline --crds crds/ -o github

  # The objects as the server would store them: pruned and defaulted
  kubectl crd validate -f crontab.yaml --crds examples/crds -o yaml`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Validate(args); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			return o.Run(c.Context())
		},
	}
	c.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "Files or directories of objects to check; - for stdin.")
	c.Flags().StringVarP(&o.Kustomize, "kustomize", "k", "", "Check the objects a kustomization directory builds.")
	c.Flags().BoolVarP(&o.Recursive, "recursive", "R", false, "Read directories given with -f recursively.")
	c.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Output format: "+strings.Join(validate.Formats, ", ")+" (yaml: the valid objects as the server would store them; the report goes to stderr).")
	c.Flags().StringVar(&o.Unknown, "validate", o.Unknown, "Unknown fields: strict (errors), warn (warnings) or ignore.")
	c.Flags().BoolVar(&o.StrictKinds, "strict-kinds", false, "Report objects whose kind has no CRD as invalid instead of skipping them.")
	c.Flags().BoolVar(&o.Offline, "offline", false, "Never contact a cluster: CRDs come from --crds and the input only.")
	c.Flags().StringArrayVar(&o.Old, "old", nil, "Files of the objects as they are now: an object found there is checked as an update of it.")
	return c
}

// Validate checks the flags.
func (o *ValidateOptions) Validate(args []string) error {
	switch {
	case len(args) > 0:
		return fmt.Errorf("unexpected arguments %q: name files with -f", args)
	case len(o.Filenames) == 0 && o.Kustomize == "":
		return fmt.Errorf("no input: name files or directories with -f, or a kustomization with -k")
	case len(o.Filenames) > 0 && o.Kustomize != "":
		return fmt.Errorf("-f and -k cannot be used together")
	case !slices.Contains(validate.Formats, o.Output):
		return fmt.Errorf("--output must be one of %s, not %q", strings.Join(validate.Formats, ", "), o.Output)
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
	// The first collection, now, before any validating: its pace (GOGC
	// 400: the next one when the heap is five times what is live) is then
	// set by what start-up built and the documents read meanwhile (about
	// 7 of 12 MB live with 2,000 objects), not by however much happens to
	// be decoded or validated when a collection would otherwise start.
	// 2,000 objects: 86 ms against 101 without it.
	runtime.GC()
	if runtime.GOMAXPROCS(0) > 1 {
		go func() { _ = validate.Warm() }()
	}
	docs, err := o.read()
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	if len(docs) == 0 {
		return &ExitError{Code: 2, Err: errors.New("no objects passed to validate")}
	}
	lookup, err := o.lookup(docs)
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	opts := validate.Options{Unknown: validate.UnknownFields(o.Unknown), StrictKinds: o.StrictKinds, Keep: o.Output == "yaml"}
	if !o.Offline {
		opts.Namespace, _, _ = o.f.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	}
	if opts.Namespace == "" {
		opts.Namespace = "default"
	}
	if opts.Old, err = o.oldLookup(opts.Namespace); err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	report := validate.Documents(ctx, docs, lookup, opts)
	if err := report.WriteReport(o.f.Streams.Out, o.f.Streams.ErrOut, o.Output, Version, isTerminal(o.f.Streams.Out)); err != nil {
		return err
	}
	switch {
	case report.Summary.Errors > 0:
		return &ExitError{Code: 2}
	case report.Summary.Invalid > 0:
		return &ExitError{Code: 1}
	}
	return nil
}

// read reads the -f files (or builds the -k kustomization); documents that
// cannot be decoded are kept, as errors of their own.
func (o *ValidateOptions) read() ([]manifest.Document, error) {
	if o.Kustomize == "" {
		return prefetch.Read(o.Filenames, o.Recursive, o.f.Streams.In)
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
	return manifest.ReadLenient(o.Kustomize+" (kustomize build)", data), nil
}

// lookup finds the CRD of a kind: first among the CRDs in the input (as
// kubectl apply would create them first), then in --crds files or the
// cluster.
func (o *ValidateOptions) lookup(docs []manifest.Document) (validate.Lookup, error) {
	local := map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition{}
	origin := map[schema.GroupKind]string{}
	for _, d := range docs {
		if d.Err != nil || !catalog.IsCRD(d.TypeMeta()) {
			continue
		}
		// A CRD that does not decode is reported by its own result.
		crd, err := catalog.DecodeCRD(d)
		if err != nil {
			continue
		}
		gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
		if first := local[gk]; first != nil && !equality.Semantic.DeepEqual(first.Spec, crd.Spec) {
			// Which one the objects would meet depends on the order of
			// applying: neither is a safe answer.
			return nil, fmt.Errorf("two different CustomResourceDefinitions for kind %s: %q at %s and %q at %s",
				gk, first.Name, origin[gk], crd.Name, crd.Origin)
		}
		local[gk], origin[gk] = crd.CustomResourceDefinition, crd.Origin
	}
	var cat *catalog.Catalog
	if !o.Offline || o.f.Offline() {
		var err error
		if cat, err = o.f.Catalog(); err != nil && (len(local) == 0 || o.f.Offline()) {
			return nil, err
		}
	}
	// One answer per kind and version, shared by the objects of the input.
	var answers memo.Map[schema.GroupVersionKind, *apiextensionsv1.CustomResourceDefinition]
	resolve := func(ctx context.Context, gvk schema.GroupVersionKind) (*apiextensionsv1.CustomResourceDefinition, error) {
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
	return func(ctx context.Context, gvk schema.GroupVersionKind) (*apiextensionsv1.CustomResourceDefinition, error) {
		if crd := local[gvk.GroupKind()]; crd != nil {
			return crd, nil
		}
		if cat == nil || gvk.Group == "" {
			return nil, nil
		}
		return answers.Get(gvk, func() (*apiextensionsv1.CustomResourceDefinition, error) { return resolve(ctx, gvk) })
	}, nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
