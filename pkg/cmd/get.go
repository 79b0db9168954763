package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/spf13/cobra"
	kubectlget "k8s.io/kubectl/pkg/cmd/get"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// GetOptions are the options of kubectl crd get: kubectl's own get, run
// over the custom resources the TYPE arguments name.
type GetOptions struct {
	f       *Factory
	kubectl *kubectlget.GetOptions

	// args are the arguments with each TYPE written as the
	// plural.version.group list the catalog chose.
	args []string
	// none: the TYPE arguments name only categories without custom
	// resources in them.
	none    bool
	factory cmdutil.Factory
}

// NewCmdGet makes kubectl crd get: kubectl's own get command, with TYPE
// resolved by the catalog and the Table of each custom resource built on
// the client from its CRD's printer columns (offline: from local objects).
func NewCmdGet(f *Factory) *cobra.Command {
	o := &GetOptions{f: f, kubectl: kubectlget.NewGetOptions("kubectl crd", f.Streams)}
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
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Complete(contextOf(c), c, args); err != nil {
				return err
			}
			if err := o.Validate(); err != nil {
				return err
			}
			return o.Run()
		},
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

// Complete resolves the TYPE arguments with the catalog and prepares
// kubectl's get over them: online, with Tables built on the client;
// offline, over the objects of -f.
func (o *GetOptions) Complete(ctx context.Context, c *cobra.Command, args []string) error {
	cat, err := o.f.Catalog()
	if err != nil {
		return err
	}
	args, resolved, err := resolveArgs(ctx, cat, args)
	if err != nil {
		return err
	}
	if len(args) > 0 && len(resolved) == 0 {
		o.none = true
		return nil
	}
	o.args = args
	if o.factory, err = o.f.kubectlFactory(ctx, cat, resolved, &o.kubectl.Filenames, o.kubectl.Recursive); err != nil {
		return err
	}
	return o.kubectl.Complete(o.factory, c, args)
}

// Validate checks the flags as kubectl's get does.
func (o *GetOptions) Validate() error {
	if o.none {
		return nil
	}
	return o.kubectl.Validate()
}

// Run lists (or watches) the objects.
func (o *GetOptions) Run() error {
	if o.none {
		// A category (such as "all") without custom resources in it.
		if o.kubectl.AllNamespaces {
			fmt.Fprintln(o.f.Streams.ErrOut, "No resources found")
		} else {
			ns, _, _ := o.f.ConfigFlags.ToRawKubeConfigLoader().Namespace()
			fmt.Fprintf(o.f.Streams.ErrOut, "No resources found in %s namespace.\n", ns)
		}
		return nil
	}
	if (o.kubectl.Watch || o.kubectl.WatchOnly) && o.f.interrupts != nil {
		o.f.interrupts.leaveToKubectl()
	}
	return o.kubectl.Run(o.factory, o.args)
}

// resolveArgs resolves the TYPE parts of get's arguments with the catalog
// and writes each as the fully qualified plural.version.group list, so that
// kubectl's get sees exactly the custom resources the catalog chose. A TYPE
// that names only empty categories comes back as an empty list.
func resolveArgs(ctx context.Context, cat *catalog.Catalog, args []string) ([]string, []catalog.Resource, error) {
	if len(args) == 0 {
		return args, nil, nil
	}
	var all []catalog.Resource
	qualify := func(typeArg string) (string, error) {
		res, err := cat.Resolve(ctx, typeArg)
		if err != nil {
			return "", err
		}
		all = append(all, res...)
		names := make([]string, len(res))
		for i, r := range res {
			gvr := r.Mapping.Resource
			names[i] = gvr.Resource + "." + gvr.Version + "." + gvr.Group
		}
		return strings.Join(names, ","), nil
	}
	out := make([]string, 0, len(args))
	if strings.Contains(strings.Join(args, " "), "/") {
		for _, a := range args {
			typ, name, ok := strings.Cut(a, "/")
			if !ok {
				return nil, nil, fmt.Errorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl crd get resource/<resource_name>' instead of 'kubectl crd get resource resource/<resource_name>'")
			}
			q, err := qualify(typ)
			if err != nil {
				return nil, nil, err
			}
			if strings.Contains(q, ",") || q == "" {
				return nil, nil, fmt.Errorf("%q must name exactly one resource type in TYPE/NAME", typ)
			}
			out = append(out, q+"/"+name)
		}
		return out, all, nil
	}
	q, err := qualify(args[0])
	if err != nil {
		return nil, nil, err
	}
	if q == "" {
		return args, nil, nil
	}
	return append(append(out, q), args[1:]...), all, nil
}
