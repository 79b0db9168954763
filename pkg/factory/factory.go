// Package factory holds the flags every verb of kubectl crd shares and
// makes what the verbs need from them: the CRD catalog, clients for the
// cluster, the Kubernetes version answered as. It is kubectl crd's
// counterpart of kubectl's cmdutil.Factory; the verbs (pkg/cmd) take it in
// their Complete.
package factory

import (
	goflag "flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/internal/interrupt"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
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

	sourceFlags sourceFlags
	// NoCluster is a verb's --offline: sources then read nothing from
	// the cluster either (flux:'s substituteFrom).
	NoCluster   bool
	sourcesOnce sync.Once
	sources     manifest.Sources
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
// --crd-cache-dir, the flags of sources (URLs, charts) and klog's -v.
func (f *Factory) AddFlags(flags *pflag.FlagSet) {
	f.flags = flags
	f.ConfigFlags.AddFlags(flags)
	addKlogFlags(flags)
	flags.StringArrayVar(&f.CRDPaths, "crds", nil, "Read CustomResourceDefinitions from this file, directory (recursively), URL, git:REVISION:PATH or Helm chart instead of the cluster; repeatable, - for stdin")
	flags.StringVar(&f.kubernetesVersion, "kubernetes-version", "", "Answer as this Kubernetes version (MAJOR.MINOR) answers: CEL libraries, schema formats, feature-gated fields, built-in kinds served; default: the cluster's, offline the newest")
	flags.StringVar(&f.IndexDir, "crd-cache-dir", defaultIndexDir(), "Where the index of --crds files is kept, so that later runs decode only the CRDs they use ($"+indexDirEnv+"); \"\" switches it off")
	f.sourceFlags.add(flags)
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
	done      bool
	noCluster bool // what it was resolved for
	v         *version.Version
	err       error
}
