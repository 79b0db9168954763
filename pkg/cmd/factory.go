package cmd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/spf13/pflag"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// Factory holds the flags every verb shares and makes what they need from
// them: the CRD catalog and, online, clients for the cluster.
type Factory struct {
	Streams     genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	// CRDPaths are the --crds files and directories; when set, CRDs come
	// from them and no cluster is contacted for CRDs.
	CRDPaths []string

	warned   map[string]bool
	catalog  *catalog.Catalog
	cleanups []func()
}

// NewFactory makes a Factory writing to streams.
func NewFactory(streams genericiooptions.IOStreams) *Factory {
	return &Factory{
		Streams:     streams,
		ConfigFlags: genericclioptions.NewConfigFlags(true).WithDeprecatedPasswordFlag().WithDiscoveryBurst(300).WithDiscoveryQPS(50.0),
		warned:      map[string]bool{},
	}
}

// AddFlags adds the kubeconfig flags and --crds.
func (f *Factory) AddFlags(flags *pflag.FlagSet) {
	f.ConfigFlags.AddFlags(flags)
	flags.StringArrayVar(&f.CRDPaths, "crds", nil, "Read CustomResourceDefinitions from this file or directory (recursively) instead of the cluster; repeatable, - for stdin")
}

// Offline tells whether CRDs come from files.
func (f *Factory) Offline() bool { return len(f.CRDPaths) > 0 }

// Warn prints "Warning: msg" on stderr once per message, as kubectl
// prints the server's warnings.
func (f *Factory) Warn(msg string) {
	if f.warned[msg] {
		return
	}
	f.warned[msg] = true
	fmt.Fprintf(f.Streams.ErrOut, "Warning: %s\n", msg)
}

// RESTConfig returns the cluster's client config, with an error that says
// what to do when there is no kubeconfig at all.
func (f *Factory) RESTConfig() (*rest.Config, error) {
	if f.noClusterConfigured() {
		return nil, errNoCluster
	}
	config, err := f.ConfigFlags.ToRESTConfig()
	if clientcmd.IsEmptyConfig(err) {
		return nil, errNoCluster
	}
	if err == nil && config.QPS == 0 {
		// client-go's default (5 per second) would make validate, which
		// reads a CRD and a list per kind of the input, wait on itself;
		// kubectl crd only reads.
		config.QPS, config.Burst = 50, 100
	}
	return config, err
}

var errNoCluster = errors.New("no cluster configured: no kubeconfig was found (set KUBECONFIG or --kubeconfig), or use --crds PATH to read CRDs from files")

// noClusterConfigured tells whether nothing names a cluster: no cluster in
// any kubeconfig, no --server, and not running in a pod. (kubectl then
// tries localhost:8080, which is never what a plugin user means.)
func (f *Factory) noClusterConfigured() bool {
	if s := f.ConfigFlags.APIServer; s != nil && *s != "" {
		return false
	}
	if os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
		return false
	}
	raw, err := f.ConfigFlags.ToRawKubeConfigLoader().RawConfig()
	return err == nil && len(raw.Clusters) == 0
}

// Catalog makes the CRD catalog: from --crds files when given, else from
// the cluster.
func (f *Factory) Catalog() (*catalog.Catalog, error) {
	if f.catalog != nil {
		return f.catalog, nil
	}
	var src catalog.Source
	if f.Offline() {
		// A path given twice is read once (shell completion parses
		// the flags twice, too).
		files, err := catalog.ReadFiles(uniquePaths(f.CRDPaths), f.Streams.In)
		if err != nil {
			return nil, err
		}
		src = files
	} else {
		config, err := f.RESTConfig()
		if err != nil {
			return nil, err
		}
		dc, err := f.ConfigFlags.ToDiscoveryClient()
		if err != nil {
			return nil, err
		}
		cluster, err := catalog.NewCluster(config, dc)
		if err != nil {
			return nil, err
		}
		src = cluster
	}
	f.catalog = catalog.New(src, f.Warn)
	return f.catalog, nil
}

// Cleanup removes what the commands left behind (temporary files).
func (f *Factory) Cleanup() {
	for _, c := range f.cleanups {
		c()
	}
	f.cleanups = nil
}

// HandleWarningHeader prints the server's warnings as kubectl does, once
// each, through Warn.
func (f *Factory) HandleWarningHeader(code int, _ string, message string) {
	if code == 299 && message != "" {
		f.Warn(message)
	}
}

func uniquePaths(paths []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range paths {
		if c := filepath.Clean(p); !seen[c] {
			seen[c] = true
			out = append(out, p)
		}
	}
	return out
}
