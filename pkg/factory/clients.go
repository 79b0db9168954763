package factory

import (
	"errors"
	"os"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// RESTConfig returns the cluster's client config, with an error that says
// what to do when there is no kubeconfig at all.
func (f *Factory) RESTConfig() (*rest.Config, error) {
	if f.NoClusterConfigured() {
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

// NoClusterConfigured tells whether nothing names a cluster: no cluster in
// any kubeconfig, no --server, and not running in a pod. (kubectl then
// tries localhost:8080, which is never what a plugin user means.)
func (f *Factory) NoClusterConfigured() bool {
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

// Namespace is where kubectl puts an object that names none: -n, else
// the kubeconfig context's namespace ("" when neither is set: then
// "default"). Both are read offline too: they are the user's flags and
// files, not the cluster's answers.
func (f *Factory) Namespace() string {
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
		files, err := catalog.ReadFiles(uniquePaths(f.CRDPaths), f.Sources(), catalog.NewIndex(f.IndexDir))
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
	kube, err := f.AnswerAs(noCluster)
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
	env, err := validate.NewEnvironment(validate.Setting{Catalog: cat, Cluster: cluster, Namespace: f.Namespace(),
		Old: old, Sources: f.Sources(), KubernetesVersion: kube})
	if err != nil {
		return nil, nil, &FlagError{Flag: "--old", Err: err}
	}
	return env, kube, nil
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
