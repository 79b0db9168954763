package cmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/spf13/cobra"
	"k8s.io/client-go/metadata"
)

// CompletionOptions are the options of kubectl crd completion.
type CompletionOptions struct {
	args []string
	root *cobra.Command
	out  io.Writer
}

var shells = []string{"bash", "zsh", "fish", "powershell"}

// NewCmdCompletion makes kubectl crd completion SHELL: the completion
// script of the kubectl-crd binary. (kubectl's own completion completes
// "kubectl crd ..." through the kubectl_complete-crd script instead.)
func NewCmdCompletion(f *factory.Factory) *cobra.Command {
	o := &CompletionOptions{}
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print the shell completion script of kubectl-crd",
		Long: `Print the shell completion script of the kubectl-crd command for bash, zsh,
fish or PowerShell. Types and object names are completed from the cluster
(or from --crds files).

For "kubectl crd ..." in kubectl's own completion (kubectl 1.26+), put the
kubectl_complete-crd script (in the release archives and plugins/) on PATH.`,
		Example: `  source <(kubectl-crd completion bash)
  kubectl-crd completion zsh > "${fpath[1]}/_kubectl-crd"
  kubectl-crd completion fish > ~/.config/fish/completions/kubectl-crd.fish`,
		ValidArgs: shells,
		RunE:      runVerb(f, o),
	}
}

// Complete takes the shell and the command tree.
func (o *CompletionOptions) Complete(f *factory.Factory, c *cobra.Command, args []string) error {
	o.args, o.root, o.out = args, c.Root(), f.Streams.Out
	return nil
}

// Validate checks that one known shell is named.
func (o *CompletionOptions) Validate() error {
	if len(o.args) != 1 || !slices.Contains(shells, o.args[0]) {
		return fmt.Errorf("invalid argument %q for %q: name one shell of %s", strings.Join(o.args, " "), "kubectl crd completion", strings.Join(shells, ", "))
	}
	return nil
}

// Run prints the script.
func (o *CompletionOptions) Run(context.Context) error {
	// The scripts complete the binary's name, not the root's display
	// name "crd".
	use := o.root.Use
	o.root.Use = "kubectl-crd"
	defer func() { o.root.Use = use }()
	switch o.args[0] {
	case "bash":
		return o.root.GenBashCompletionV2(o.out, true)
	case "zsh":
		return o.root.GenZshCompletion(o.out)
	case "fish":
		return o.root.GenFishCompletion(o.out, true)
	default:
		return o.root.GenPowerShellCompletionWithDesc(o.out)
	}
}

// completeTypes completes a TYPE argument: every CRD's plural, singular
// and short names and its categories.
func completeTypes(f *factory.Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return typeNames(contextOf(c), f, toComplete), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeTypeAndName completes get's arguments: a TYPE first (or
// TYPE/NAME), then the names of that type's objects in the namespace.
func completeTypeAndName(f *factory.Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		ctx := contextOf(c)
		if typ, prefix, ok := strings.Cut(toComplete, "/"); ok && len(args) == 0 {
			names := objectNames(ctx, c, f, typ, prefix, nil)
			for i, n := range names {
				names[i] = typ + "/" + n
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		}
		if len(args) == 0 {
			return typeNames(ctx, f, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		if strings.Contains(args[0], "/") {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		return objectNames(ctx, c, f, args[0], toComplete, args[1:]), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeGroupVersions completes openapi's arguments: GROUP/VERSION for
// v3, TYPE for --openapi-version=2.
func completeGroupVersions(f *factory.Factory) cobra.CompletionFunc {
	return func(c *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if v, _ := c.Flags().GetInt("openapi-version"); v == 2 {
			return typeNames(contextOf(c), f, toComplete), cobra.ShellCompDirectiveNoFileComp
		}
		gvs := complete(f, func(cat *catalog.Catalog) ([]string, error) { return cat.GroupVersions(contextOf(c), toComplete) })
		return slices.DeleteFunc(gvs, func(gv string) bool { return slices.Contains(args, gv) }), cobra.ShellCompDirectiveNoFileComp
	}
}

func typeNames(ctx context.Context, f *factory.Factory, prefix string) []string {
	return complete(f, func(cat *catalog.Catalog) ([]string, error) { return cat.TypeNames(ctx, prefix) })
}

// objectNames lists the names of typ's objects (in the namespace of the
// flags, or all with -A) that start with prefix and are not in given.
func objectNames(ctx context.Context, c *cobra.Command, f *factory.Factory, typ, prefix string, given []string) []string {
	if f.Offline(false) {
		return nil
	}
	names := complete(f, func(cat *catalog.Catalog) ([]string, error) {
		config, err := f.RESTConfig()
		if err != nil {
			return nil, err
		}
		client, err := metadata.NewForConfig(config)
		if err != nil {
			return nil, err
		}
		all, _ := c.Flags().GetBool("all-namespaces")
		return cat.ObjectNames(ctx, client, typ, f.Namespace(), all, prefix)
	})
	return slices.DeleteFunc(names, func(n string) bool { return slices.Contains(given, n) })
}

// complete asks the catalog for names; what goes wrong is for
// completion's debug log only.
func complete(f *factory.Factory, names func(*catalog.Catalog) ([]string, error)) []string {
	cat, err := f.Catalog(false)
	if err != nil {
		cobra.CompDebugln(err.Error(), true)
		return nil
	}
	out, err := names(cat)
	if err != nil {
		cobra.CompDebugln(err.Error(), true)
	}
	return out
}
