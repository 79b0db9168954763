package validate

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// Environment is what checks are made with: the catalog of CRDs, and the
// options that come from the cluster or its absence (built-in kinds,
// published schemas, the namespace, the objects an input updates).
// validate, lsp and test make theirs with NewEnvironment.
type Environment struct {
	Catalog *catalog.Catalog
	Options Options
	// cluster is where the environment's answers come from (the zero
	// Cluster: none).
	cluster Cluster
}

// Check checks the documents of input with opts (the environment's, as
// the caller set them), put together with the environment's catalog (see
// NewPipeline).
func (e *Environment) Check(ctx context.Context, input Input, opts Options) (Report, error) {
	p, err := NewPipeline(e.Catalog, input)
	if err != nil {
		return Report{}, err
	}
	return p.Check(ctx, opts)
}

// Cluster is how an environment reaches the cluster: Config and Discovery
// set, or Err saying why the cluster that would answer cannot be asked;
// the zero Cluster is none (offline, or none configured), and every
// answer is then the one a cluster would give that has only what the
// input and the catalog hold.
type Cluster struct {
	Config    *rest.Config
	Discovery discovery.DiscoveryInterface
	Err       error
}

func (c Cluster) none() bool { return c.Config == nil && c.Err == nil }

// Online tells whether the environment's answers come with a cluster's.
func (e *Environment) Online() bool { return e.cluster.Config != nil }

// Setting is what an environment is made of.
type Setting struct {
	Catalog *catalog.Catalog
	Cluster Cluster
	// Namespace is where objects without one go ("": default).
	Namespace string
	// Old are files of the objects as they are now (validate --old):
	// an object found there is checked as an update of it; none: the
	// cluster's objects, if there is a cluster.
	Old []string
	// Sources reads the Old paths that are not local files (URLs, git
	// revisions, charts; nil: files only).
	Sources manifest.Sources
	// KubernetesVersion is the version answered as (nil: the newest).
	KubernetesVersion *version.Version
}

// NewEnvironment makes the environment of a setting: kube-apiserver's own
// kinds (online, the versions the cluster serves), the schemas the
// cluster publishes for the kinds that are neither built in nor defined
// by a CRD, and where the objects and CRDs an input updates are found.
// Nothing is asked of the cluster yet.
func NewEnvironment(s Setting) (*Environment, error) {
	env := &Environment{Catalog: s.Catalog, Options: Options{Namespace: s.Namespace, KubernetesVersion: s.KubernetesVersion}, cluster: s.Cluster}
	env.Options.Namespace = builtin.NamespaceOr("", env.Options.Namespace)
	var err error
	if env.Options.BuiltIn, err = builtInKinds(s); err != nil {
		return nil, err
	}
	if s.Cluster.Discovery != nil {
		env.Options.Published = &resolver.ClientDiscoveryResolver{Discovery: s.Cluster.Discovery}
	}
	switch {
	case len(s.Old) > 0:
		env.Options.Old, env.Options.OldCRD, err = oldFromFiles(s.Old, s.Sources, env.Options.Namespace)
	case s.Cluster.Err != nil:
		// The cluster that would answer cannot be asked.
		env.Options.Old = func(context.Context, schema.GroupVersionKind, schema.GroupVersionResource, string, string) (map[string]any, error) {
			return nil, s.Cluster.Err
		}
		env.Options.OldCRD = func(context.Context, string) (*apiextensionsv1.CustomResourceDefinition, error) {
			return nil, s.Cluster.Err
		}
	case !s.Cluster.none():
		env.Options.Old, env.Options.OldCRD, err = liveLookups(s.Cluster.Config)
	}
	return env, err
}

// builtInKinds makes the checker of kube-apiserver's own kinds: online,
// the versions the cluster serves and its namespaces; with no cluster,
// kube-apiserver's defaults.
func builtInKinds(s Setting) (*builtin.Kinds, error) {
	switch {
	case s.Cluster.none():
		return builtin.New(s.KubernetesVersion, nil, nil)
	case s.Cluster.Err != nil:
		// The cluster that would say what it serves cannot be asked.
		return builtin.New(s.KubernetesVersion, func(schema.GroupVersionKind) (bool, error) { return false, s.Cluster.Err }, nil)
	}
	client, err := corev1client.NewForConfig(s.Cluster.Config)
	if err != nil {
		return nil, err
	}
	return builtin.New(s.KubernetesVersion, s.Catalog.Serves, client.Namespaces())
}

// SkipKinds reads --skip-kinds: KIND, KIND.GROUP or GROUP/VERSION/KIND
// (VERSION/KIND for the core group); nil when there are none.
func SkipKinds(specs []string) (func(schema.GroupVersionKind) bool, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	kinds := map[string]bool{} // Kind
	groupKinds := map[schema.GroupKind]bool{}
	gvks := map[schema.GroupVersionKind]bool{}
	for _, s := range specs {
		switch parts := strings.Split(s, "/"); {
		case s == "" || strings.Contains(s, " "):
			return nil, fmt.Errorf("--skip-kinds: %q is not a kind", s)
		case len(parts) == 3 && parts[0] != "" && parts[1] != "" && parts[2] != "":
			gvks[schema.GroupVersionKind{Group: parts[0], Version: parts[1], Kind: parts[2]}] = true
		case len(parts) == 2 && parts[0] != "" && parts[1] != "":
			gvks[schema.GroupVersionKind{Version: parts[0], Kind: parts[1]}] = true
		case len(parts) == 1:
			if kind, group, ok := strings.Cut(s, "."); ok {
				groupKinds[schema.GroupKind{Group: group, Kind: kind}] = true
			} else {
				kinds[s] = true
			}
		default:
			return nil, fmt.Errorf("--skip-kinds: %q is not KIND, KIND.GROUP or GROUP/VERSION/KIND", s)
		}
	}
	return func(gvk schema.GroupVersionKind) bool {
		return kinds[gvk.Kind] || groupKinds[gvk.GroupKind()] || gvks[gvk]
	}, nil
}
