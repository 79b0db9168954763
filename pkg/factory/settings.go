package factory

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// WithSettings is a factory of the same flags as f's but for another
// kubeconfig context ("": f's), other --crds and another
// --kubernetes-version ("": f's): its own catalog,
// clients and Kubernetes version. The flags f's command line set are set
// again on the new factory's flags, so that every kubeconfig flag (and
// any kubectl adds) carries over.
func (f *Factory) WithSettings(crds []string, context, kubernetesVersion string) *Factory {
	// The settings' sources read no standard input: the editor's
	// connection may be on it.
	streams := f.Streams
	streams.In = nil
	g := New(streams)
	flags := pflag.NewFlagSet("settings", pflag.ContinueOnError)
	g.AddFlags(flags)
	if f.flags != nil {
		f.flags.Visit(func(given *pflag.Flag) {
			if to := flags.Lookup(given.Name); to != nil {
				setLike(to, given)
			}
		})
	}
	if context != "" {
		_ = flags.Set("context", context)
	}
	if kubernetesVersion != "" {
		_ = flags.Set("kubernetes-version", kubernetesVersion)
	}
	g.CRDPaths = crds
	return g
}

// setLike gives to the value given has: a list's items, or the value.
func setLike(to, given *pflag.Flag) {
	if list, ok := given.Value.(pflag.SliceValue); ok {
		if into, ok := to.Value.(pflag.SliceValue); ok {
			_ = into.Replace(list.GetSlice())
			return
		}
	}
	_ = to.Value.Set(given.Value.String())
}

// RegisterFlagCompletions completes the shared flags on root: --crds
// with YAML and JSON files (and directories), --context with the
// kubeconfig's contexts.
func (f *Factory) RegisterFlagCompletions(root *cobra.Command) {
	_ = root.RegisterFlagCompletionFunc("crds", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"yaml", "yml", "json"}, cobra.ShellCompDirectiveFilterFileExt
	})
	_ = root.RegisterFlagCompletionFunc("context", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		raw, err := f.ConfigFlags.ToRawKubeConfigLoader().RawConfig()
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for name := range raw.Contexts {
			if strings.HasPrefix(name, toComplete) {
				out = append(out, name)
			}
		}
		slices.Sort(out)
		return out, cobra.ShellCompDirectiveNoFileComp
	})
}
