// Package factory holds the flags every verb of kubectl crd shares and
// makes what the verbs need from them: the CRD catalog, clients for the
// cluster, the Kubernetes version answered as. It is kubectl crd's
// counterpart of kubectl's cmdutil.Factory; the verbs (pkg/cmd) take it in
// their Complete.
package factory

import (
	"errors"
	goflag "flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"k8s.io/client-go/dynamic"

	"github.com/kubectl-crd/kubectl-crd/internal/interrupt"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/spf13/pflag"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// Factory holds the flags every verb shares and makes what they need from
// them: the CRD catalog, clients for the cluster, the Kubernetes version
// answered as. Its flags are not changed once they are parsed; what one
// verb alone sets lives in that verb's options, and what the Factory makes
// from its flags it makes once.
type Factory struct {
	Streams     genericiooptions.IOStreams
	ConfigFlags *genericclioptions.ConfigFlags
	// CRDPaths are the --crds files and directories; when set, CRDs come
	// from them and no cluster is contacted.
	CRDPaths []string
	// IndexDir keeps the index of --crds files ("" : no index).
	IndexDir string
	// kubernetesVersion is --kubernetes-version ("": the cluster's
	// online, else the newest).
	kubernetesVersion string
	// flags are the parsed flags above (for clients of other settings).
	flags *pflag.FlagSet

	// RawOut is standard output as the process has it (Streams.Out
	// passes on whole lines); nil where the factory was made otherwise.
	RawOut io.Writer
	// Interrupts handles SIGINT and SIGTERM (nil outside a process's
	// run: tests).
	Interrupts *interrupt.Handler
	// Trace, when set, hears each step of a verb as it starts
	// (Complete, Validate, Run), for tests of the command contract.
	Trace func(step string)

	warnMu    sync.Mutex // Warn is called from client-go's warning handler, in any goroutine
	warned    map[string]bool
	catalog   *catalog.Catalog
	version   resolved
	cleanupMu sync.Mutex
	cleanups  []func()
}

// New makes a Factory writing to streams.
func New(streams genericiooptions.IOStreams) *Factory {
	flags := genericclioptions.NewConfigFlags(true).WithDeprecatedPasswordFlag().WithDiscoveryBurst(300).WithDiscoveryQPS(50.0)
	flags.WrapConfigFn = nameTheProxy
	return &Factory{
		Streams:     streams,
		ConfigFlags: flags,
		warned:      map[string]bool{},
	}
}

// AddFlags adds the kubeconfig flags, --crds, --kubernetes-version,
// --crd-cache-dir and klog's -v.
func (f *Factory) AddFlags(flags *pflag.FlagSet) {
	f.flags = flags
	f.ConfigFlags.AddFlags(flags)
	addKlogFlags(flags)
	flags.StringArrayVar(&f.CRDPaths, "crds", nil, "Read CustomResourceDefinitions from this file or directory (recursively) instead of the cluster; repeatable, - for stdin")
	flags.StringVar(&f.kubernetesVersion, "kubernetes-version", "", "Answer as this Kubernetes version (MAJOR.MINOR) answers: CEL libraries, schema formats, feature-gated fields, built-in kinds served; default: the cluster's, offline the newest")
	flags.StringVar(&f.IndexDir, "crd-cache-dir", defaultIndexDir(), "Where the index of --crds files is kept, so that later runs decode only the CRDs they use ($"+indexDirEnv+"); \"\" switches it off")
}

// addKlogFlags adds klog's -v and hides the rest of its flags, as kubectl
// shows only -v.
func addKlogFlags(flags *pflag.FlagSet) {
	gofs := goflag.NewFlagSet("klog", goflag.ContinueOnError)
	klog.InitFlags(gofs)
	gofs.VisitAll(func(gf *goflag.Flag) {
		pf := pflag.PFlagFromGoFlag(gf)
		if pf.Name != "v" {
			pf.Hidden = true
		}
		flags.AddFlag(pf)
	})
}

// indexDirEnv names the environment variable that overrides the index's
// place ("" switches it off).
const indexDirEnv = "KUBECTL_CRD_CACHE_DIR"

// defaultIndexDir is $KUBECTL_CRD_CACHE_DIR when it is set, else
// kubectl-crd/crds in the user's cache directory.
func defaultIndexDir() string {
	if dir, ok := os.LookupEnv(indexDirEnv); ok {
		return dir
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "kubectl-crd", "crds")
	}
	return ""
}

// Offline tells whether no cluster is contacted: CRDs come from --crds, or
// the verb was told to reach none (noCluster: validate --offline).
func (f *Factory) Offline(noCluster bool) bool { return len(f.CRDPaths) > 0 || noCluster }

// Warn prints "Warning: msg" on stderr once per message, as kubectl
// prints the server's warnings.
func (f *Factory) Warn(msg string) {
	f.warnMu.Lock()
	defer f.warnMu.Unlock()
	if f.warned[msg] {
		return
	}
	f.warned[msg] = true
	fmt.Fprintf(f.Streams.ErrOut, "Warning: %s\n", msg)
}

// HandleWarningHeader prints the server's warnings as kubectl does, once
// each, through Warn.
func (f *Factory) HandleWarningHeader(code int, _ string, message string) {
	if code == 299 && message != "" {
		f.Warn(message)
	}
}

// RESTConfig returns the cluster's client config, with an error that says
// what to do when there is no kubeconfig at all.
func (f *Factory) RESTConfig() (*rest.Config, error) {
	if f.noClusterConfigured() {
		return nil, ErrNoCluster
	}
	config, err := f.ConfigFlags.ToRESTConfig()
	if clientcmd.IsEmptyConfig(err) {
		return nil, ErrNoCluster
	}
	if err == nil && config.QPS == 0 {
		// client-go's default (5 per second) would make validate, which
		// reads a CRD and a list per kind of the input, wait on itself.
		config.QPS, config.Burst = 50, 100
	}
	return config, err
}

// ErrNoCluster is RESTConfig's error when no kubeconfig names a cluster.
var ErrNoCluster = errors.New("no cluster configured: no kubeconfig was found (set KUBECONFIG or --kubeconfig), or use --crds PATH to read CRDs from files")

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

// DynamicClient is a client of the cluster's objects, as kubectl's
// factory makes one.
func (f *Factory) DynamicClient() (dynamic.Interface, error) {
	config, err := f.RESTConfig()
	if err != nil {
		return nil, err
	}
	return dynamic.NewForConfig(config)
}

// Namespace is the kubeconfig's namespace ("" when none is set, or the
// verb reaches no cluster).
func (f *Factory) Namespace(noCluster bool) string {
	if noCluster {
		return ""
	}
	ns, _, err := f.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return ""
	}
	return ns
}

// Catalog makes the CRD catalog, once: over the --crds files when given,
// over nothing with noCluster, else over the cluster. An error reading
// --crds is returned now; a cluster that cannot be asked is reported by
// the catalog when an answer needs it.
func (f *Factory) Catalog(noCluster bool) (*catalog.Catalog, error) {
	if f.catalog != nil {
		return f.catalog, nil
	}
	switch {
	case len(f.CRDPaths) > 0:
		// A path given twice is read once (shell completion parses the
		// flags twice, too).
		files, err := catalog.ReadFiles(uniquePaths(f.CRDPaths), f.Streams.In, catalog.NewIndex(f.IndexDir))
		if err != nil {
			return nil, &FlagError{Flag: "--crds", Err: err}
		}
		f.catalog = catalog.New(files, f.Warn)
	case noCluster:
		f.catalog = catalog.New(nil, f.Warn)
	default:
		cluster, err := f.cluster()
		if err != nil {
			f.catalog = catalog.Unavailable(err, f.Warn)
		} else {
			f.catalog = catalog.New(cluster, f.Warn)
		}
	}
	return f.catalog, nil
}

func (f *Factory) cluster() (*catalog.Cluster, error) {
	config, err := f.RESTConfig()
	if err != nil {
		return nil, err
	}
	dc, err := f.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		return nil, err
	}
	client, err := apiextensionsclient.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return catalog.NewCluster(dc, client.CustomResourceDefinitions()), nil
}

// Cluster is how checks reach the cluster (validate's environment): none
// offline or when no cluster is configured; why not, when the config
// cannot be read.
func (f *Factory) Cluster(noCluster bool) (validate.Cluster, error) {
	if f.Offline(noCluster) {
		return validate.Cluster{}, nil
	}
	config, err := f.RESTConfig()
	switch {
	case errors.Is(err, ErrNoCluster):
		return validate.Cluster{}, nil
	case err != nil:
		return validate.Cluster{Err: err}, nil
	}
	dc, err := f.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		return validate.Cluster{}, err
	}
	return validate.Cluster{Config: config, Discovery: dc}, nil
}

// Environment is the validate.Environment of a verb that checks objects
// (validate, lsp, test), and the Kubernetes version answered as: the
// catalog, the cluster (none with noCluster), the namespace, and the
// files of old objects (validate --old).
func (f *Factory) Environment(noCluster bool, old []string) (*validate.Environment, *version.Version, error) {
	kube, err := f.KubernetesVersion(noCluster)
	if err != nil {
		return nil, nil, err
	}
	cat, err := f.Catalog(noCluster)
	if err != nil {
		return nil, nil, err
	}
	cluster, err := f.Cluster(noCluster)
	if err != nil {
		return nil, nil, err
	}
	env, err := validate.NewEnvironment(validate.Setting{Catalog: cat, Cluster: cluster, Namespace: f.Namespace(noCluster),
		Old: old, KubernetesVersion: kube})
	if err != nil {
		return nil, nil, &FlagError{Flag: "--old", Err: err}
	}
	return env, kube, nil
}

// OnCleanup adds c to what Cleanup runs.
func (f *Factory) OnCleanup(c func()) {
	f.cleanupMu.Lock()
	f.cleanups = append(f.cleanups, c)
	f.cleanupMu.Unlock()
}

// Cleanup removes what the commands left behind (temporary files).
func (f *Factory) Cleanup() {
	// An interrupt's handler runs this from its own goroutine.
	f.cleanupMu.Lock()
	cleanups := f.cleanups
	f.cleanups = nil
	f.cleanupMu.Unlock()
	for _, c := range cleanups {
		c()
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

// resolved is the Kubernetes version once resolved.
type resolved struct {
	done bool
	v    *version.Version
	err  error
}

// FlagError is an input named by a flag that cannot be read: a file or
// directory that cannot be opened is said with the flag that named it
// ("--crds crds/: no such file or directory"); a problem inside a file
// names the file and line, as it is.
type FlagError struct {
	Flag string
	Err  error
}

func (e *FlagError) Error() string {
	var me *manifest.Error
	if errors.As(e.Err, &me) && me.Unopened {
		return e.Flag + " " + e.Err.Error()
	}
	return e.Err.Error()
}

func (e *FlagError) Unwrap() error { return e.Err }
