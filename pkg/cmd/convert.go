package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/kubectl-crd/kubectl-crd/pkg/convert"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"
)

// ConvertOptions are the options of kubectl crd convert.
type ConvertOptions struct {
	Filenames     []string
	Recursive     bool
	Output        string
	OutputVersion string
	RoundTrip     bool
	Check         bool
	WebhookURL    string
	WebhookCA     string
	ChunkSize     int64

	types   []string // --check: TYPE [NAME...]
	offline bool
	run     convert.Conversion
	f       *factory.Factory // the cluster's clients, for --check
}

// NewCmdConvert makes kubectl crd convert.
func NewCmdConvert(f *factory.Factory) *cobra.Command {
	o := &ConvertOptions{ChunkSize: 500}
	c := &cobra.Command{
		Use:   "convert -f PATH... [--output-version GROUP/VERSION | --round-trip] | convert TYPE [NAME...] --check",
		Short: "Convert custom resources between their CRD's versions as the API server does",
		Long: `Convert the custom resources in local files to another version of their
CRD, as the API server would return them, with its own converter (None,
or the CRD's webhook, checked as the server checks it; a service's webhook
is reached with --webhook-url). --round-trip reports what going to each
other version and back loses; TYPE --check names the stored objects the
cluster cannot read at every served version.

Exit status: 0 when every object converts (and comes back unchanged), 1
when a conversion fails or a round trip changes an object, 2 when the
input cannot be read, a CRD is missing or a version is unknown.`,
		Example: `  # The example CronTabs at v1beta1, as the server would return them
  kubectl crd convert -f examples/objects/valid --crds examples/crds --output-version v1beta1

  # What a round trip through the other versions loses
  kubectl crd convert -f examples/objects/valid --crds examples/crds --round-trip

  # Before moving the storage version: can every stored object be read?
  kubectl crd convert widgets --check`,
		RunE:              runVerb(f, o),
		ValidArgsFunction: completeTypeAndName(f),
	}
	c.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "Files, directories, URLs or git:REV:PATH of objects to convert; - for stdin.")
	c.Flags().BoolVarP(&o.Recursive, "recursive", "R", false, "Read directories given with -f recursively.")
	c.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: yaml (default) or json; with --round-trip or --check: text (default) or json.")
	c.Flags().StringVar(&o.OutputVersion, "output-version", "", "The version to convert to: GROUP/VERSION, or VERSION for every object's group (default: each CRD's preferred version).")
	c.Flags().BoolVar(&o.RoundTrip, "round-trip", false, "Convert every object to each other served version and back, and report what changes.")
	c.Flags().BoolVar(&o.Check, "check", false, "Read the stored objects of TYPE (or the NAMEs) at every served version through the cluster, and report those it cannot return.")
	c.Flags().StringVar(&o.WebhookURL, "webhook-url", "", "Where the conversion webhook answers (https://HOST:PORT[/PATH]), for a webhook run locally or port-forwarded; TLS is still verified against the CRD's clientConfig.")
	c.Flags().StringVar(&o.WebhookCA, "webhook-ca", "", "A PEM file of CA certificates to trust for the webhook, besides the CRD's caBundle.")
	c.Flags().Int64Var(&o.ChunkSize, "chunk-size", o.ChunkSize, "With --check: objects per list page.")
	_ = c.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		if o.RoundTrip || o.Check {
			return []string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp
		}
		return []string{"yaml", "json"}, cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

// Complete makes the catalog and the webhook's client settings.
func (o *ConvertOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.types, o.offline, o.f = args, f.Offline(false), f
	o.run = convert.Conversion{OutputVersion: o.OutputVersion, Format: o.Output, Out: f.Streams.Out, Errors: f.Streams.ErrOut}
	timeout, err := clientcmd.ParseTimeout(*f.ConfigFlags.Timeout)
	if err != nil {
		return &UsageError{Err: fmt.Errorf("--request-timeout: %w", err)}
	}
	o.run.Webhook = convert.Webhook{URL: o.WebhookURL, Timeout: timeout}
	return nil
}

// load resolves the Kubernetes version (converted objects are checked as
// the cluster's version checks them), the catalog and the webhook's CA.
func (o *ConvertOptions) load() error {
	var err error
	if o.run.KubernetesVersion, err = o.f.AnswerAs(false); err != nil {
		return err
	}
	if o.run.Catalog, err = o.f.Catalog(false); err != nil {
		return err
	}
	if o.WebhookCA != "" {
		if o.run.Webhook.CA, err = os.ReadFile(o.WebhookCA); err != nil {
			return fmt.Errorf("--webhook-ca: %w", err)
		}
	}
	return nil
}

// Validate checks the flags.
func (o *ConvertOptions) Validate() error {
	report := o.RoundTrip || o.Check
	switch {
	case o.RoundTrip && o.Check:
		return errors.New("--round-trip and --check cannot be used together")
	case o.Check && len(o.types) == 0:
		return errors.New("--check reads the stored objects of a type: kubectl crd convert TYPE [NAME...] --check")
	case o.Check && len(o.Filenames) > 0:
		return errors.New("--check reads stored objects, not files: drop -f (convert -f --round-trip checks files)")
	case o.Check && o.offline:
		return errors.New("--check reads the objects stored in a cluster: it does not go with --crds")
	case !o.Check && len(o.types) > 0:
		return fmt.Errorf("unexpected arguments %q: name the files to convert with -f", o.types)
	case !o.Check && len(o.Filenames) == 0:
		return errors.New("no input: name files or directories with -f (- for stdin)")
	case report && o.Output != "" && o.Output != "text" && o.Output != "json":
		return fmt.Errorf("--output must be text or json, not %q", o.Output)
	case !report && o.Output != "" && o.Output != "yaml" && o.Output != "json":
		return fmt.Errorf("--output must be yaml or json, not %q", o.Output)
	case report && o.OutputVersion != "":
		return errors.New("--output-version converts objects: it does not go with --round-trip or --check")
	case o.ChunkSize <= 0:
		return errors.New("--chunk-size must be positive")
	}
	return o.run.Webhook.Validate()
}

// Run converts, round-trips or checks.
func (o *ConvertOptions) Run(ctx context.Context) error {
	err := o.load()
	switch {
	case err != nil:
	case o.Check:
		err = o.check(ctx)
	default:
		err = o.convert(ctx)
	}
	if err == nil && o.run.Code != 0 {
		return &ExitError{Code: o.run.Code}
	}
	return err
}

// convert reads the -f files and converts or round-trips their objects.
func (o *ConvertOptions) convert(ctx context.Context) error {
	input, err := manifest.OpenPaths(o.Filenames, o.Recursive, o.f.Sources())
	if err != nil {
		return &factory.FlagError{Flag: "-f", Err: err}
	}
	// Every document is held to be converted: read each file once, and
	// decode each document once (the pipeline keeps what its first walk
	// decoded for an input in memory).
	if err := input.Load(); err != nil {
		return &factory.FlagError{Flag: "-f", Err: err}
	}
	p, err := validate.NewPipeline(o.run.Catalog, input)
	if err != nil {
		return &factory.FlagError{Flag: "-f", Err: err}
	}
	objects, err := p.Objects()
	if err != nil {
		return &factory.FlagError{Flag: "-f", Err: err}
	}
	o.run.Catalog = p.Catalog()
	return o.run.Files(ctx, objects, o.RoundTrip)
}

// check reads the stored objects of the TYPE (or its NAMEs) at every
// served version through the cluster.
func (o *ConvertOptions) check(ctx context.Context) error {
	res, err := o.run.Catalog.Resolve(ctx, o.types[0])
	if err != nil {
		return err
	}
	client, err := o.f.DynamicClient()
	if err != nil {
		return err
	}
	opts := convert.StoredOptions{PageSize: o.ChunkSize, Concurrency: 8, Names: o.types[1:], Namespace: o.f.Namespace()}
	return o.run.CheckStored(ctx, client, res, opts)
}
