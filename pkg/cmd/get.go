package cmd

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/internal/interrupt"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/localapi"
	"github.com/kubectl-crd/kubectl-crd/pkg/tabletransport"
	"github.com/spf13/cobra"
	kubectlget "k8s.io/kubectl/pkg/cmd/get"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// GetOptions are the options of kubectl crd get: kubectl's own get, run
// over the custom resources the TYPE arguments name.
type GetOptions struct {
	kubectl *kubectlget.GetOptions

	// args are the arguments with each TYPE written as the
	// plural.version.group list the catalog chose.
	args []string
	// none: the TYPE arguments name only categories without custom
	// resources in them.
	none    bool
	factory cmdutil.Factory
	// namespace is where objects are listed, for a "not found" message.
	namespace string
	errOut    io.Writer
	// interrupts, under --watch, are left to kubectl's own handler.
	interrupts *interrupt.Handler
	f          *factory.Factory
	c          *cobra.Command
}

// NewCmdGet makes kubectl crd get: kubectl's own get command, with TYPE
// resolved by the catalog and the Table of each custom resource built on
// the client from its CRD's printer columns (offline: from local objects).
func NewCmdGet(f *factory.Factory) *cobra.Command {
	o := &GetOptions{kubectl: kubectlget.NewGetOptions("kubectl crd", f.Streams)}
	c := &cobra.Command{
		Use:                   fmt.Sprintf("get [(-o|--output=)%s] (TYPE[.VERSION][.GROUP] [NAME | -l label] | TYPE[.VERSION][.GROUP]/NAME ...) [flags]", strings.Join(o.kubectl.PrintFlags.AllowedFormats(), "|")),
		DisableFlagsInUseLine: true,
		Short:                 "List custom resources with their CRD's printer columns",
		Long: `List custom resources as kubectl get lists them, printing the columns of the
CRD's additionalPrinterColumns on the client: the same table the API server
would build. With --crds, the CRDs come from files and -f names local objects
to print: a preview of a CRD's columns without a cluster.`,
		Example: `  # Custom resources of a type, in any of kubectl's names for it
  kubectl crd get crontabs
  kubectl crd get ct -o wide -A

  # Every custom resource in a category
  kubectl crd get all

  # Columns of local objects, without a cluster
  kubectl crd get -f examples/objects/valid --crds examples/crds`,
		RunE:              runVerb(f, o),
		ValidArgsFunction: completeTypeAndName(f),
	}
	k := o.kubectl
	k.PrintFlags.AddFlags(c)
	flags := c.Flags()
	flags.BoolVarP(&k.Watch, "watch", "w", k.Watch, "After listing/getting the requested object, watch for changes.")
	flags.BoolVar(&k.WatchOnly, "watch-only", k.WatchOnly, "Watch for changes to the requested object(s), without listing/getting first.")
	flags.BoolVar(&k.OutputWatchEvents, "output-watch-events", k.OutputWatchEvents, "Output watch event objects when --watch or --watch-only is used. Existing objects are output as initial ADDED events.")
	flags.BoolVar(&k.IgnoreNotFound, "ignore-not-found", k.IgnoreNotFound, "If set to true, suppresses NotFound error for specific objects that do not exist.")
	flags.StringVar(&k.FieldSelector, "field-selector", k.FieldSelector, "Selector (field query) to filter on: metadata.name, metadata.namespace and the version's selectableFields (e.g. --field-selector spec.color=blue).")
	flags.BoolVarP(&k.AllNamespaces, "all-namespaces", "A", k.AllNamespaces, "If present, list the requested object(s) across all namespaces.")
	cmdutil.AddFilenameOptionFlags(c, &k.FilenameOptions, "identifying the resource to get (with --crds: the objects to print).")
	cmdutil.AddChunkSizeFlag(c, &k.ChunkSize)
	cmdutil.AddLabelSelectorFlagVar(c, &k.LabelSelector)
	return c
}

// Complete takes the arguments; Run resolves them with the catalog and
// runs kubectl's get over them: online, with Tables built on the client;
// offline, over the objects of -f.
func (o *GetOptions) Complete(f *factory.Factory, c *cobra.Command, args []string) error {
	o.interrupts, o.namespace, o.errOut = f.Interrupts, f.Namespace(), f.Streams.ErrOut
	o.f, o.c, o.args = f, c, args
	return nil
}

// resolve reads the catalog, resolves the TYPEs, and completes kubectl's
// get on the factory that answers them.
func (o *GetOptions) resolve(ctx context.Context) error {
	cat, err := o.f.Catalog(false)
	if err != nil {
		return err
	}
	args, resolved, err := cat.QualifyArgs(ctx, o.args)
	if err != nil {
		return err
	}
	if len(args) > 0 && len(resolved) == 0 {
		o.none = true
		return nil
	}
	o.args = args
	if o.factory, err = o.kubectlFactory(ctx, o.f, cat, resolved); err != nil {
		return err
	}
	if err := o.kubectl.Complete(o.factory, o.c, args); err != nil {
		return err
	}
	// Checked again once completed, as kubectl checks them.
	if err := o.kubectl.Validate(); err != nil {
		return &UsageError{Err: err}
	}
	return nil
}

// kubectlFactory makes the factory kubectl's get runs on. Online it is
// the kubeconfig's, with every client's transport answering Table
// requests for custom resources on the client. Offline it serves the
// objects of -f (pkg/localapi), and discovery from the --crds files.
func (o *GetOptions) kubectlFactory(ctx context.Context, f *factory.Factory, cat *catalog.Catalog, resolved []catalog.Resource) (cmdutil.Factory, error) {
	tables := tabletransport.NewTables(tabletransport.CatalogLookup(cat, resolved))
	online := !f.Offline(false)
	if err := localapi.SourcesToFiles(o.kubectl.Filenames, o.kubectl.Recursive, f.Sources(), online, f.OnCleanup); err != nil {
		return nil, &factory.FlagError{Flag: "-f", Err: err}
	}
	if online {
		return cmdutil.NewFactory(&tabletransport.Getter{ConfigFlags: f.ConfigFlags, Tables: tables}), nil
	}
	server, err := localapi.ServerFor(ctx, cat, resolved, o.kubectl.Filenames, o.kubectl.Recursive, o.errOut)
	if err != nil {
		return nil, &factory.FlagError{Flag: "-f", Err: err}
	}
	getter, err := localapi.NewGetter(f.ConfigFlags, cat, &tabletransport.Transport{Next: server, Tables: tables})
	if err != nil {
		return nil, err
	}
	return cmdutil.NewFactory(getter), nil
}

// Validate checks the flags as kubectl's get does.
func (o *GetOptions) Validate() error {
	// kubectl's checks read its flags alone: made before anything is read.
	return o.kubectl.Validate()
}

// Run resolves the TYPEs and lists (or watches) the objects.
func (o *GetOptions) Run(ctx context.Context) error {
	if err := o.resolve(ctx); err != nil {
		return err
	}
	switch {
	case o.none && o.kubectl.AllNamespaces:
		// A category (such as "all") without custom resources in it.
		fmt.Fprintln(o.errOut, "No resources found")
		return nil
	case o.none:
		fmt.Fprintf(o.errOut, "No resources found in %s namespace.\n", o.namespace)
		return nil
	}
	if (o.kubectl.Watch || o.kubectl.WatchOnly) && o.interrupts != nil {
		o.interrupts.LeaveToKubectl()
	}
	return o.kubectl.Run(o.factory, o.args)
}
