package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/kubectl-crd/kubectl-crd/internal/interrupt"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/migrate"
	"github.com/spf13/cobra"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// MigrateOptions are the options of kubectl crd migrate.
type MigrateOptions struct {
	Types       []string
	All         bool
	ChunkSize   int64
	Concurrency int
	DryRun      string
	Output      string

	offline    bool
	f          *factory.Factory
	catalog    *catalog.Catalog
	migrator   *migrate.Migrator
	out, errw  io.Writer
	interrupts *interrupt.Handler
}

// NewCmdMigrate makes kubectl crd migrate.
func NewCmdMigrate(f *factory.Factory) *cobra.Command {
	o := &MigrateOptions{ChunkSize: 500, Concurrency: 4, DryRun: "none"}
	c := &cobra.Command{
		Use:   "migrate TYPE...",
		Short: "Move every object of a CRD to its storage version, then prune status.storedVersions",
		Long: `Move every object of each named CRD to the CRD's storage version, as
Kubernetes documents it: every object is read at the storage version (if
that fails, nothing is written), written back unchanged, and then
status.storedVersions is set to the storage version alone, so that an old
version can be dropped. Conflicts are retried, refusals reported; running
it again is harmless. Ctrl-C stops it before its next write (a second one
at once), storedVersions left as it was. It needs get on
customresourcedefinitions, list and update on the resource, update on
customresourcedefinitions/status.

Exit status: 0 when every object is at the storage version and
storedVersions was pruned, 1 when some objects failed or the CRD changed,
2 for a usage error or objects that cannot be read at the storage version,
130 (143) when interrupted by SIGINT (SIGTERM).`,
		Example: `  # Graduate v1alpha1 to v1: after setting storage: true on v1
  kubectl crd migrate widgets.example.com

  # What would happen, without writing
  kubectl crd migrate widgets --dry-run=client
  kubectl crd migrate widgets --dry-run=server -o json`,
		RunE:              runVerb(f, o),
		ValidArgsFunction: completeTypes(f),
	}
	c.Flags().BoolVar(&o.All, "all", false, "Allow a category (or all) among the TYPEs: every CRD in it is migrated.")
	c.Flags().Int64Var(&o.ChunkSize, "chunk-size", o.ChunkSize, "Objects per list page.")
	c.Flags().IntVar(&o.Concurrency, "concurrency", o.Concurrency, "Objects written at once (no other client-side rate limit; the server's 429s are waited out).")
	c.Flags().StringVar(&o.DryRun, "dry-run", o.DryRun, `"none", "client" (print the plan, write nothing) or "server" (send every update with dryRun=All: the server converts, validates and admits each object without storing it).`)
	c.Flags().Lookup("dry-run").NoOptDefVal = "client"
	c.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: json or yaml (the result of each CRD's migration).")
	_ = c.RegisterFlagCompletionFunc("dry-run", cobra.FixedCompletions([]string{"none", "client", "server"}, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json", "yaml"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// Complete takes the TYPEs and the streams; the clients are made in Run,
// once the flags are checked.
func (o *MigrateOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.Types, o.offline, o.out, o.errw, o.interrupts, o.f = args, f.Offline(false), f.Streams.Out, f.Streams.ErrOut, f.Interrupts, f
	return nil
}

// connect reads the catalog and makes the clients the migration writes
// through.
func (o *MigrateOptions) connect() error {
	var err error
	if o.catalog, err = o.f.Catalog(false); err != nil {
		return err
	}
	config, err := o.f.RESTConfig()
	if err != nil {
		return err
	}
	// No client-side rate limit for the objects, as kubectl replace has
	// none in effect (a client per object): --concurrency bounds what is in
	// flight, and the server's priority and fairness answers 429 with the
	// wait it wants.
	config = rest.CopyConfig(config)
	config.QPS, config.RateLimiter = -1, nil
	objects, err := dynamic.NewForConfig(config)
	if err != nil {
		return err
	}
	crds, err := apiextensionsclient.NewForConfig(config)
	if err != nil {
		return err
	}
	o.migrator = &migrate.Migrator{CRDs: crds.CustomResourceDefinitions(), Objects: objects}
	return nil
}

func (o *MigrateOptions) Validate() error {
	switch {
	case len(o.Types) == 0:
		return errors.New("name the CRDs to migrate: kubectl crd migrate TYPE")
	case o.offline:
		return errors.New("migrate writes to a cluster: it does not go with --crds")
	case !slices.Contains([]string{"none", "client", "server"}, o.DryRun):
		return fmt.Errorf(`--dry-run must be "none", "client" or "server", not %q`, o.DryRun)
	case o.Output != "" && o.Output != "json" && o.Output != "yaml":
		return fmt.Errorf("--output must be json or yaml, not %q", o.Output)
	case o.ChunkSize <= 0 || o.Concurrency <= 0:
		return errors.New("--chunk-size and --concurrency must be positive")
	}
	return nil
}

// Run resolves the TYPEs to CRDs and migrates each in turn.
func (o *MigrateOptions) Run(ctx context.Context) error {
	if err := o.connect(); err != nil {
		return err
	}
	for _, t := range o.Types {
		if o.catalog.Category(t) && !o.All {
			return &UsageError{Err: fmt.Errorf("%q is a category: migrating every CRD in it needs --all", t)}
		}
	}
	names, err := o.catalog.CRDNames(ctx, o.Types)
	if err != nil {
		return err
	}
	// The first interrupt stops new writes (stop), the second ends the
	// writes in flight too (ctx).
	ctx, stop, signalled, release := o.interrupts.InTwoSteps(ctx, func() {
		clear := "" // the progress line, on a terminal
		if isTerminal(o.errw) {
			clear = "\r\033[K"
		}
		fmt.Fprintf(o.errw, "%sInterrupted: no new writes; waiting for those in flight (again to end them at once)\n", clear)
	})
	defer release()
	opts := migrate.Options{ChunkSize: o.ChunkSize, Concurrency: o.Concurrency, Stop: stop}
	if o.DryRun != "none" {
		opts.DryRun = o.DryRun
	}
	var progress io.Writer
	if isTerminal(o.errw) {
		progress = o.errw
	}
	results, failed, err := o.migrator.All(ctx, names, opts, progress)
	if err != nil {
		return err
	}
	code := 0
	if failed {
		code = 1
	}
	if sig := signalled(); sig != nil {
		code = interrupt.ExitCode(sig)
	}
	if err := migrate.Write(o.out, results, o.Output); err != nil {
		return err
	}
	if code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}
