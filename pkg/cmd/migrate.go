package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/migrate"
	"github.com/spf13/cobra"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"
)

// MigrateOptions are the options of kubectl crd migrate.
type MigrateOptions struct {
	f *Factory

	Types       []string
	All         bool
	ChunkSize   int64
	Concurrency int
	DryRun      string
	Output      string

	names    []string // the CRDs to migrate
	migrator *migrate.Migrator
}

// NewCmdMigrate makes kubectl crd migrate.
func NewCmdMigrate(f *Factory) *cobra.Command {
	o := &MigrateOptions{f: f, ChunkSize: 500, Concurrency: 4, DryRun: "none"}
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
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Validate(args); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			if err := o.Complete(contextOf(c)); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			return o.Run(contextOf(c))
		},
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

// Validate checks the flags.
func (o *MigrateOptions) Validate(args []string) error {
	o.Types = args
	switch {
	case len(args) == 0:
		return errors.New("name the CRDs to migrate: kubectl crd migrate TYPE")
	case o.f.Offline():
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

// Complete resolves the TYPEs to CRDs (a category only with --all).
func (o *MigrateOptions) Complete(ctx context.Context) error {
	cat, err := o.f.Catalog()
	if err != nil {
		return err
	}
	for _, t := range o.Types {
		if cat.Category(t) && !o.All {
			return fmt.Errorf("%q is a category: migrating every CRD in it needs --all", t)
		}
		res, err := cat.Resolve(ctx, t)
		if err != nil {
			return err
		}
		for _, r := range res {
			if name := r.Mapping.Resource.GroupResource().String(); !slices.Contains(o.names, name) {
				o.names = append(o.names, name)
			}
		}
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

// Run migrates each CRD in turn.
func (o *MigrateOptions) Run(ctx context.Context) error {
	// The first interrupt stops new writes (stop), the second ends the
	// writes in flight too (ctx).
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop, stopWrites := context.WithCancel(ctx)
	defer stopWrites()
	var signalled atomic.Value // os.Signal: the first one
	if o.f.interrupts != nil {
		o.f.interrupts.take(func(sig os.Signal) {
			if signalled.CompareAndSwap(nil, sig) {
				clear := "" // the progress line, on a terminal
				if isTerminal(o.f.Streams.ErrOut) {
					clear = "\r\033[K"
				}
				fmt.Fprintf(o.f.Streams.ErrOut, "%sInterrupted: no new writes; waiting for those in flight (again to end them at once)\n", clear)
				stopWrites()
				return
			}
			cancel()
		})
	}
	var results []*migrate.Result
	code := 0
	for _, name := range o.names {
		if stop.Err() != nil {
			break // the CRDs after an interrupted one are not started
		}
		opts := migrate.Options{ChunkSize: o.ChunkSize, Concurrency: o.Concurrency, Stop: stop}
		if o.DryRun != "none" {
			opts.DryRun = o.DryRun
		}
		if isTerminal(o.f.Streams.ErrOut) {
			opts.Progress = progress(o.f.Streams.ErrOut, name, time.Now())
		}
		r, err := o.migrator.Migrate(ctx, name, opts)
		if opts.Progress != nil {
			fmt.Fprint(o.f.Streams.ErrOut, "\r\033[K")
		}
		var conv *migrate.ConversionError
		switch {
		case errors.As(err, &conv):
			return &ExitError{Code: 2, Err: fmt.Errorf("%s: %w", name, err)}
		case apierrors.IsForbidden(err):
			return &ExitError{Code: 2, Err: fmt.Errorf("%s: %w (migrate needs get on customresourcedefinitions, list and update on %s, update on customresourcedefinitions/status)", name, err, name)}
		case err != nil:
			return &ExitError{Code: 2, Err: fmt.Errorf("%s: %w", name, err)}
		}
		if len(r.Failed) > 0 || (r.NotPruned != "" && r.DryRun == "") {
			code = 1
		}
		results = append(results, r)
	}
	if sig, ok := signalled.Load().(os.Signal); ok {
		code = exitCode(sig)
	}
	if err := o.print(results); err != nil {
		return err
	}
	if code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}

func (o *MigrateOptions) print(results []*migrate.Result) error {
	out := o.f.Streams.Out
	var doc any = results
	if len(results) == 1 {
		doc = results[0]
	}
	switch o.Output {
	case "json":
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(doc)
	case "yaml":
		b, err := yaml.Marshal(doc)
		if err != nil {
			return err
		}
		_, err = out.Write(b)
		return err
	}
	var b strings.Builder
	for _, r := range results {
		writeMigration(&b, r)
	}
	_, err := io.WriteString(out, b.String())
	return err
}

func writeMigration(b *strings.Builder, r *migrate.Result) {
	if r.DryRun == "client" {
		fmt.Fprintf(b, "%s: %d objects to write back at %s (dry run: nothing written)\n", r.CRD, r.Objects, r.StorageVersion)
		var namespaces []string
		for ns := range r.Namespaces {
			namespaces = append(namespaces, ns)
		}
		sort.Strings(namespaces)
		for _, ns := range namespaces {
			name := ns
			if name == "" {
				name = "(cluster-scoped)"
			}
			fmt.Fprintf(b, "  %s: %d\n", name, r.Namespaces[ns])
		}
		fmt.Fprintf(b, "  storedVersions: %v, then %v\n", r.StoredVersionsBefore, []string{r.StorageVersion})
		return
	}
	if r.DryRun == "server" {
		fmt.Fprintf(b, "%s: %d objects sent to the server at %s (dry run: nothing written): %d accepted, %d gone, %d would fail\n",
			r.CRD, r.Objects, r.StorageVersion, r.Accepted, r.Gone, len(r.Failed))
	} else if r.Interrupted {
		fmt.Fprintf(b, "%s: interrupted, %d of %d objects done at %s: %d rewritten, %d unchanged, %d gone, %d failed\n",
			r.CRD, r.Rewritten+r.Unchanged+r.Gone+len(r.Failed), r.Objects, r.StorageVersion, r.Rewritten, r.Unchanged, r.Gone, len(r.Failed))
	} else {
		fmt.Fprintf(b, "%s: %d objects migrated to %s: %d rewritten, %d unchanged, %d gone, %d failed\n",
			r.CRD, r.Objects, r.StorageVersion, r.Rewritten, r.Unchanged, r.Gone, len(r.Failed))
	}
	for _, f := range r.Failed {
		name := f.Name
		if f.Namespace != "" {
			name = f.Namespace + "/" + f.Name
		}
		fmt.Fprintf(b, "  failed %s: %s\n", name, f.Message)
	}
	if r.Interrupted {
		fmt.Fprintf(b, "  storedVersions %v left as it was; run it again to finish\n", r.StoredVersionsBefore)
	} else if r.NotPruned != "" {
		fmt.Fprintf(b, "  storedVersions %v left as it was: %s\n", r.StoredVersionsBefore, r.NotPruned)
	} else {
		fmt.Fprintf(b, "  storedVersions %v is now %v\n", r.StoredVersionsBefore, r.StoredVersionsAfter)
	}
}

// progress writes a line on a terminal: done/total, rate, time left.
func progress(w io.Writer, name string, start time.Time) func(done, total int) {
	last := time.Time{}
	return func(done, total int) {
		now := time.Now()
		if now.Sub(last) < 200*time.Millisecond && done < total {
			return
		}
		last = now
		elapsed := now.Sub(start).Seconds()
		rate := float64(done) / max(elapsed, 0.001)
		left := time.Duration(float64(total-done)/max(rate, 0.001)) * time.Second
		fmt.Fprintf(w, "\r\033[K%s: %d/%d objects, %.0f/s, %v left", name, done, total, rate, left.Round(time.Second))
	}
}
