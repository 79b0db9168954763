package factory

import (
	"context"
	"strconv"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/flux"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/sources"
	"github.com/spf13/pflag"
)

// sourceFlags are how paths that are not local files are read.
type sourceFlags struct {
	urlCacheDir  string
	insecureHTTP bool
	fluxSources  []string
	helm         string
	fluxMap      map[string]string // fluxSources read
}

func (s *sourceFlags) add(flags *pflag.FlagSet) {
	flags.StringVar(&s.urlCacheDir, "url-cache-dir", "", "Keep what URLs answered here, by URL and ETag (or Last-Modified), and ask again whether it changed (default: nothing kept)")
	flags.BoolVar(&s.insecureHTTP, "insecure-http", false, "Read http:// URLs: unencrypted, so anyone on the way may change the CRDs and objects read")
	flags.StringArrayVar(&s.fluxSources, "flux-source", nil, "For flux:PATH, the local directory of a Flux source, as KIND/NAMESPACE/NAME=DIR (default: a GitRepository is the git work tree that holds PATH)")
	flags.StringVar(&s.helm, "helm", "", "For flux:PATH, the helm binary that renders HelmReleases' charts (default: helm on PATH)")
}

// Sources reads the paths verbs are given (--crds, -f, diff --old, the
// editor's crds setting) when they are not local files: standard input,
// URLs, git revisions, Helm charts. See package sources.
func (f *Factory) Sources() manifest.Sources {
	f.sourcesOnce.Do(func() {
		if f.sourceFlags.fluxMap == nil {
			// A factory of other settings (the editor's): its flags
			// were read once already, by the command's own.
			_ = f.sourceFlags.checkFluxSources()
		}
		f.sources = sources.New(sources.Options{
			Stdin:        f.Streams.In,
			Timeout:      f.requestTimeout(),
			CacheDir:     f.sourceFlags.urlCacheDir,
			InsecureHTTP: f.sourceFlags.insecureHTTP,
			Warn:         f.Warn,
			Flux:         flux.Options{Sources: f.sourceFlags.fluxMap, Helm: f.sourceFlags.helm, Cluster: f.fluxCluster},
		})
	})
	return f.sources
}

// CheckSourceFlags reads the flags of sources, an error for one that
// cannot be read.
func (f *Factory) CheckSourceFlags() error { return f.sourceFlags.checkFluxSources() }

// checkFluxSources reads --flux-source.
func (s *sourceFlags) checkFluxSources() error {
	s.fluxMap = map[string]string{}
	for _, v := range s.fluxSources {
		key, dir, err := flux.ParseSource(v)
		if err != nil {
			return err
		}
		s.fluxMap[key] = dir
	}
	return nil
}

// fluxCluster reads a ConfigMap or Secret that flux:PATH's substituteFrom
// or valuesFrom names and the repository does not hold, from the cluster
// when the command is online (never offline: then none is found).
func (f *Factory) fluxCluster(ctx context.Context, kind, namespace, name string) (map[string]any, error) {
	resource := map[string]string{"ConfigMap": "configmaps", "Secret": "secrets"}[kind]
	if f.Offline(f.NoCluster) || f.NoClusterConfigured() || resource == "" {
		return nil, apierrors.NewNotFound(schema.GroupResource{Resource: resource}, name)
	}
	client, err := f.DynamicClient()
	if err != nil {
		return nil, err
	}
	u, err := client.Resource(schema.GroupVersionResource{Version: "v1", Resource: resource}).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return u.Object, nil
}

// requestTimeout is --request-timeout as client-go reads it (a number of
// seconds or a duration; 0 or unreadable: none, client-go then refusing
// the unreadable value where a cluster is asked).
func (f *Factory) requestTimeout() time.Duration {
	if f.ConfigFlags.Timeout == nil {
		return 0
	}
	s := *f.ConfigFlags.Timeout
	if n, err := strconv.Atoi(s); err == nil {
		return time.Duration(n) * time.Second
	}
	d, _ := time.ParseDuration(s)
	return d
}
