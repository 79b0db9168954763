package factory

import (
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"k8s.io/apimachinery/pkg/util/version"
)

// AnswerAs is the one step that fixes the Kubernetes version a run
// answers as: it resolves it (--kubernetes-version when given, which the
// root command resolves before any verb runs; else, online, the version
// the cluster runs or emulates, its /version; else the newest this build
// knows) and sets the server code's compatibility registry to it, once
// for the process, as kube-apiserver's --emulated-version sets it.
// Nothing else sets the registry; the verbs whose answers depend on the
// version call this first in Run, and pass the version down to what
// reports it or measures by it. noCluster: the verb reaches no cluster
// (validate --offline, cost -f); a second call must ask the same.
func (f *Factory) AnswerAs(noCluster bool) (*version.Version, error) {
	if !f.version.done {
		f.version.done, f.version.noCluster = true, noCluster
		f.version.v, f.version.err = f.answerAs(noCluster)
	}
	if noCluster != f.version.noCluster && f.kubernetesVersion == "" {
		return nil, fmt.Errorf("the Kubernetes version was resolved with noCluster %v, then asked with %v: one run answers as one version", f.version.noCluster, noCluster)
	}
	return f.version.v, f.version.err
}

// answerAs resolves the version and sets the registry to it. The newest
// version is set too, not left as the registry's default: a process that
// runs several commands (a test, a language server) answers each as its
// own version, not as the one a command before it asked for.
func (f *Factory) answerAs(noCluster bool) (*version.Version, error) {
	v, minCompatibility, cluster, err := f.resolveKubernetesVersion(noCluster)
	if err != nil {
		return nil, err
	}
	if err := kubeversion.Use(v, minCompatibility, cluster); err != nil {
		if f.kubernetesVersion != "" {
			return nil, fmt.Errorf("--kubernetes-version %s: %w", f.kubernetesVersion, err)
		}
		return nil, err
	}
	return v, nil
}

// resolveKubernetesVersion is the version asked for, else the cluster's
// (with its minimum compatibility version, where it says), else the
// newest. cluster: the version is the cluster's.
func (f *Factory) resolveKubernetesVersion(noCluster bool) (v, minCompatibility *version.Version, cluster bool, err error) {
	_, newest := kubeversion.Range()
	if f.kubernetesVersion != "" {
		v, err := kubeversion.Parse(f.kubernetesVersion)
		if err != nil {
			return nil, nil, false, fmt.Errorf("--kubernetes-version: %w", err)
		}
		return v, nil, false, nil
	}
	if f.Offline(noCluster) {
		return newest, nil, false, nil
	}
	if _, err := f.RESTConfig(); err != nil {
		// Nothing to ask; the verb reports this where an answer needs
		// the cluster.
		return newest, nil, false, nil
	}
	dc, err := f.ConfigFlags.ToDiscoveryClient()
	if err != nil {
		return nil, nil, false, err
	}
	info, err := dc.ServerVersion()
	if err != nil {
		f.Warn(fmt.Sprintf("the cluster's version could not be read (%v); answering as Kubernetes %s", err, newest))
		return newest, nil, false, nil
	}
	v, minCompatibility, err = kubeversion.OfServer(info)
	return v, minCompatibility, err == nil, err
}

// ResolveAskedVersion resolves --kubernetes-version now, when it is
// given: the root command does, so that a version out of range is an
// error for every verb before anything runs.
func (f *Factory) ResolveAskedVersion() error {
	if f.kubernetesVersion == "" {
		return nil
	}
	_, err := f.AnswerAs(false)
	return err
}
