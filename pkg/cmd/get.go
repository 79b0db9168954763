package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/localapi"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/tabletransport"
	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/klog/v2"
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
	// noResources says a category holds no custom resources, as kubectl
	// says none were found.
	noResources func()
	// interrupts, under --watch, are left to kubectl's own handler.
	interrupts *interrupts
}

// NewCmdGet makes kubectl crd get: kubectl's own get command, with TYPE
// resolved by the catalog and the Table of each custom resource built on
// the client from its CRD's printer columns (offline: from local objects).
func NewCmdGet(f *Factory) *cobra.Command {
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
		RunE:              run(f, o),
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
func (o *GetOptions) Complete(f *Factory, c *cobra.Command, args []string) error {
	ctx := contextOf(c)
	o.interrupts = f.interrupts
	o.noResources = func() {
		if o.kubectl.AllNamespaces {
			fmt.Fprintln(f.Streams.ErrOut, "No resources found")
		} else {
			fmt.Fprintf(f.Streams.ErrOut, "No resources found in %s namespace.\n", f.Namespace(false))
		}
	}
	cat, err := f.Catalog(false)
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
	if o.factory, err = o.kubectlFactory(ctx, f, cat, resolved); err != nil {
		return err
	}
	return o.kubectl.Complete(o.factory, c, args)
}

// kubectlFactory makes the factory kubectl's get runs on. Online it is
// the kubeconfig's, with every client's transport answering Table
// requests for custom resources on the client. Offline it serves the
// objects of -f (pkg/localapi), and discovery from the --crds files.
func (o *GetOptions) kubectlFactory(ctx context.Context, f *Factory, cat *catalog.Catalog, resolved []catalog.Resource) (cmdutil.Factory, error) {
	known := map[schema.GroupResource]*apiextensionsv1.CustomResourceDefinition{}
	var asked []*apiextensionsv1.CustomResourceDefinition
	for _, r := range resolved {
		if r.CRD == nil {
			continue
		}
		known[r.Mapping.Resource.GroupResource()] = r.CRD.CustomResourceDefinition
		if !slices.ContainsFunc(asked, func(c *apiextensionsv1.CustomResourceDefinition) bool { return c.Name == r.CRD.Name }) {
			asked = append(asked, r.CRD.CustomResourceDefinition)
		}
	}
	tables := tabletransport.NewTables(func(ctx context.Context, gr schema.GroupResource) (*apiextensionsv1.CustomResourceDefinition, error) {
		if crd, ok := known[gr]; ok {
			return crd, nil
		}
		crd, err := cat.ForResource(ctx, gr)
		switch {
		case apierrors.IsForbidden(err):
			klog.V(2).InfoS("Cannot read the CustomResourceDefinition; asking the server for the table", "name", gr.String(), "err", err)
			return nil, nil
		case err != nil || crd == nil:
			return nil, err
		}
		return crd.CustomResourceDefinition, nil
	})
	if !f.Offline(false) {
		return cmdutil.NewFactory(&tabletransport.Getter{ConfigFlags: f.ConfigFlags, Tables: tables}), nil
	}
	if err := f.stdinToFile(o.kubectl.Filenames); err != nil {
		return nil, err
	}
	server, err := localapi.ServerFor(ctx, cat, asked, o.kubectl.Filenames, o.kubectl.Recursive)
	if err != nil {
		return nil, &flagError{flag: "-f", err: err}
	}
	getter, err := localapi.NewGetter(f.ConfigFlags, cat, &tabletransport.Transport{Next: server, Tables: tables})
	if err != nil {
		return nil, err
	}
	return cmdutil.NewFactory(getter), nil
}

// stdinToFile saves standard input to a file when it is among filenames,
// so that both kubectl's reader and the local server can read it.
func (f *Factory) stdinToFile(filenames []string) error {
	for i, name := range filenames {
		if name != "-" {
			continue
		}
		dir, err := os.MkdirTemp("", "kubectl-crd-stdin-")
		if err != nil {
			return err
		}
		f.onCleanup(func() { os.RemoveAll(dir) })
		docs, err := manifest.ReadAll("-", f.Streams.In)
		if err != nil {
			return err
		}
		var data []byte
		for _, d := range docs {
			data = append(append(data, d.JSON...), '\n')
		}
		path := filepath.Join(dir, "stdin.json")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return err
		}
		filenames[i] = path
	}
	return nil
}

// Validate checks the flags as kubectl's get does.
func (o *GetOptions) Validate() error {
	if o.none {
		return nil
	}
	return o.kubectl.Validate()
}

// Run lists (or watches) the objects.
func (o *GetOptions) Run(context.Context) error {
	if o.none {
		// A category (such as "all") without custom resources in it.
		o.noResources()
		return nil
	}
	if (o.kubectl.Watch || o.kubectl.WatchOnly) && o.interrupts != nil {
		o.interrupts.leaveToKubectl()
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
