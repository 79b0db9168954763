package validate

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
)

// AdmissionSetting says where admission's configuration comes from: the
// one way validate, lsp and test set admission up.
type AdmissionSetting struct {
	// Policies are files of policies, bindings, params and namespaces
	// (--policies); none: online, the cluster's, offline no admission.
	Policies []string
	// Sources reads the Policies paths that are not local files.
	Sources manifest.Sources
	// Off turns admission off (--no-policies).
	Off bool
	// Require makes the cluster's policies that cannot be read an error
	// (--require-policies), where they are otherwise left out, said in
	// Admission.NotChecked.
	Require bool
	// Input, when set, is the pipeline of the objects to check: its CRDs
	// are known beside the catalog's (param kinds, rules), and its
	// Namespaces exist as kubectl apply of it would leave them.
	Input *Pipeline
	// User is who sends the requests.
	User user.Info
	// Warn, when set, is told each warning of the configuration, once:
	// those of the policy files before any object is checked, and a
	// namespace a selector reads that was not given when first met.
	Warn func(string)
}

// Admission is admission as set up.
type Admission struct {
	// Chain runs the policies (nil: there are none).
	Chain *policies.Chain
	// NotChecked, when not empty, says that admission is left out and
	// why: the cluster's policies cannot be read.
	NotChecked string
}

// PolicyFilesError is SetUpAdmission's error about the policy files
// (one that cannot be read, a policy the server would refuse).
type PolicyFilesError struct{ Err error }

func (e *PolicyFilesError) Error() string { return e.Err.Error() }
func (e *PolicyFilesError) Unwrap() error { return e.Err }

// SetUpAdmission reads admission's configuration as s says and starts
// it. Close the Chain when done.
func (e *Environment) SetUpAdmission(ctx context.Context, s AdmissionSetting) (Admission, error) {
	if s.Off {
		return Admission{}, nil
	}
	warn := s.Warn
	if warn == nil {
		warn = func(string) {}
	}
	cat := e.Catalog
	if s.Input != nil {
		cat = s.Input.Catalog()
	}
	var set *policies.Set
	var err error
	if len(s.Policies) > 0 {
		if set, err = e.ReadPolicies(ctx, cat, s.Policies, s.Sources); err != nil {
			return Admission{}, &PolicyFilesError{Err: err}
		}
		for _, w := range set.Warnings {
			warn(w)
		}
	} else {
		set, err = e.ClusterPolicies(ctx, cat)
		var unreadable *UnreadableError
		switch {
		case errors.Is(err, ErrNoClusterPolicies):
			return Admission{}, nil
		case errors.As(err, &unreadable) && !s.Require:
			return Admission{NotChecked: fmt.Sprintf("admission policies were not checked: %v (--require-policies makes this an error)", err)}, nil
		case err != nil:
			return Admission{}, fmt.Errorf("reading the cluster's admission policies: %w", err)
		}
		for _, w := range clusterPolicyWarnings(set) {
			warn(w)
		}
	}
	if set.Empty() {
		return Admission{}, nil
	}
	if s.Input != nil {
		if err := e.WithInputNamespaces(ctx, s.Input, set); err != nil {
			return Admission{}, err
		}
	}
	chain, err := e.StartAdmission(ctx, cat, set, s.User, madeUpOnce(warn))
	return Admission{Chain: chain}, err
}

// clusterPolicyWarnings are the warnings of the cluster's own policies
// that concern the answers given here: those that call the authorizer.
func clusterPolicyWarnings(set *policies.Set) []string {
	var out []string
	for _, p := range set.Validating {
		out = append(out, authorizerWarnings(nil, policies.ValidatingKind, p.Name, &p.Spec)...)
	}
	for _, p := range set.Mutating {
		out = append(out, authorizerWarnings(nil, policies.MutatingKind, p.Name, &p.Spec)...)
	}
	return out
}

// madeUpOnce warns once of each namespace admission made up from its
// name alone, but for those every cluster has, which the server makes
// just so (default, kube-system, kube-public, kube-node-lease).
func madeUpOnce(warn func(string)) func(string) {
	var seen sync.Map
	return func(namespace string) {
		if builtinNamespace(namespace) {
			return
		}
		if _, dup := seen.LoadOrStore(namespace, true); !dup {
			warn(fmt.Sprintf("namespace %q is not given (by -f or --policies) nor read from a cluster: namespaceSelector and namespaceObject see it as the server creates it from a name alone, with only the label kubernetes.io/metadata.name=%s", namespace, namespace))
		}
	}
}

// builtinNamespace tells whether kube-apiserver makes the namespace
// itself.
func builtinNamespace(name string) bool {
	switch name {
	case metav1.NamespaceDefault, metav1.NamespaceSystem, metav1.NamespacePublic, corev1.NamespaceNodeLease:
		return true
	}
	return false
}
