// Package builtin checks objects of the kinds kube-apiserver serves itself
// (Deployment, Service, Role, APIService, ...) as kube-apiserver checks a
// create or an update before admission, with its own code: the JSON
// decoding of fieldValidation=Strict (unknown fields), the defaulting and
// conversion of its scheme (k8s.io/kubernetes/pkg/api/legacyscheme, and
// kube-aggregator's for APIService), and each resource's registry strategy
// (k8s.io/kubernetes/pkg/registry/..., k8s.io/kube-aggregator/...):
// PrepareForCreate and Validate, or PrepareForUpdate and ValidateUpdate,
// with declarative validation where the strategy runs it. Where a
// resource's REST storage changes an object before its strategy (a
// Service's clusterIP and clusterIPs), that step runs first, as there.
//
// Admission policies run around the strategy when a policies.Chain is
// given; other admission (quotas, limit ranges, pod security, webhooks)
// and authorization (RBAC escalation, paramKind access) are the
// cluster's and are not run.
//
// builtin.go is the registry of kinds (which are served, at which
// versions); request.go one request's answer; resources.go the
// resources and their strategies.
package builtin

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/endpoints/deprecation"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/apiserver/scheme"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// Kinds are the kinds kube-apiserver serves and stores.
type Kinds struct {
	byGK    map[schema.GroupKind]*resource
	schemes []*scheme
	served  func(schema.GroupVersionKind) (bool, error)
	// at is the Kubernetes version answered as: what is served at it, and
	// what deprecated is measured against.
	at *version.Version
	// paths reads request paths as kube-apiserver does.
	paths *genericapirequest.RequestInfoFactory
}

// scheme is one of kube-apiserver's schemes (its own, kube-aggregator's)
// with the serializers a request body and storage are read with.
type scheme struct {
	*runtime.Scheme
	codecs serializer.CodecFactory
	strict runtime.Serializer // decodes as fieldValidation=Strict
	plain  runtime.Serializer // decodes as storage reads
}

func newScheme(s *runtime.Scheme, codecs serializer.CodecFactory) *scheme {
	out := &scheme{Scheme: s, codecs: codecs}
	for _, info := range codecs.SupportedMediaTypes() {
		if info.MediaType == runtime.ContentTypeJSON {
			out.strict, out.plain = info.StrictSerializer, info.Serializer
		}
	}
	return out
}

// New makes Kinds as Kubernetes at answers (its kinds served by
// default; nil: the newest this build knows). served, when not nil, says which versions the cluster
// serves (its discovery); nil takes kube-apiserver's defaults. namespaces
// reads namespaces for the checks that need one (a ResourceClaim asking
// for admin access); nil when there is no cluster: those checks then fail
// saying so.
func New(at *version.Version, served func(schema.GroupVersionKind) (bool, error), namespaces corev1client.NamespaceInterface) (*Kinds, error) {
	if namespaces == nil {
		var err error
		if namespaces, err = offlineNamespaces(); err != nil {
			return nil, err
		}
	}
	k := &Kinds{byGK: map[schema.GroupKind]*resource{}, served: served, paths: &genericapirequest.RequestInfoFactory{
		APIPrefixes:          sets.NewString("api", "apis"),
		GrouplessAPIPrefixes: sets.NewString("api"),
	}}
	kube, aggregator := newScheme(legacyscheme.Scheme, legacyscheme.Codecs), newScheme(aggregatorscheme.Scheme, aggregatorscheme.Codecs)
	k.schemes = []*scheme{kube, aggregator}
	// The defaults are those of the version answered as.
	if at == nil {
		_, at = kubeversion.Range()
	}
	k.at = at
	for _, r := range resources(namespaces, kube, aggregator) {
		r.versions = servedAt(r, at)
		k.byGK[schema.GroupKind{Group: r.gr.Group, Kind: r.kind}] = &r
	}
	return k, nil
}

// Kind is a kind kube-apiserver serves at one version.
type Kind struct {
	GVK      schema.GroupVersionKind
	Resource schema.GroupVersionResource
	// Deprecated is the warning the server sends for a deprecated version
	// ("" when it is not).
	Deprecated string
	strategy   Strategy
	begin      func(obj, old runtime.Object)
	scheme     *scheme
	kinds      *Kinds
}

// Namespaced tells whether objects of the kind live in namespaces.
func (k *Kind) Namespaced() bool { return k.strategy.NamespaceScoped() }

// NotServedError is the answer for a kind of a built-in group that the
// server does not serve at that version (a removed version, say).
type NotServedError struct{ GVK schema.GroupVersionKind }

func (e *NotServedError) Error() string {
	return fmt.Sprintf("no matches for kind %q in version %q", e.GVK.Kind, e.GVK.GroupVersion())
}

// UncheckedError is the answer for a kind the server serves but does not
// store (a review), or that kubectl crd has no strategy for (one served
// only when the cluster switches it on).
type UncheckedError struct{ GVK schema.GroupVersionKind }

func (e *UncheckedError) Error() string {
	return fmt.Sprintf("%s %s is served by kube-apiserver, but not as an object kubectl crd can check", e.GVK.GroupVersion(), e.GVK.Kind)
}

// Lookup returns the kind gvk names: nil and no error when its group is
// not one of kube-apiserver's own, a *NotServedError when the server does
// not serve it, an *UncheckedError when it does but kubectl crd cannot
// check its objects, or an error when the cluster cannot say what it
// serves.
func (k *Kinds) Lookup(gvk schema.GroupVersionKind) (*Kind, error) {
	if !slices.ContainsFunc(k.schemes, func(s *scheme) bool { return s.IsGroupRegistered(gvk.Group) }) {
		return nil, nil
	}
	r := k.byGK[gvk.GroupKind()]
	served := r != nil && slices.Contains(r.versions, gvk.Version)
	if k.served != nil {
		var err error
		if served, err = k.served(gvk); err != nil {
			return nil, err
		}
	}
	switch {
	case !served:
		return nil, &NotServedError{GVK: gvk}
	case r == nil || r.strategy == nil || !r.scheme.Recognizes(gvk):
		return nil, &UncheckedError{GVK: gvk}
	}
	kind := &Kind{GVK: gvk, Resource: r.gr.WithVersion(gvk.Version), strategy: r.strategy, begin: r.begin, scheme: r.scheme, kinds: k}
	if versioned, err := r.scheme.New(gvk); err == nil {
		versioned.GetObjectKind().SetGroupVersionKind(gvk)
		// Deprecated as the version answered as measures it (a version
		// deprecated in 1.36 is not yet in 1.34).
		if deprecation.IsDeprecated(versioned, int(k.at.Major()), int(k.at.Minor())) {
			kind.Deprecated = deprecation.WarningMessage(versioned)
		}
	}
	return kind, nil
}

// KindFor is the kind of a resource kube-apiserver serves at the
// resource's version.
func (k *Kinds) KindFor(gvr schema.GroupVersionResource) (schema.GroupVersionKind, bool) {
	for gk, r := range k.byGK {
		if r.gr == gvr.GroupResource() && slices.Contains(r.versions, gvr.Version) {
			return gk.WithVersion(gvr.Version), true
		}
	}
	return schema.GroupVersionKind{}, false
}

// Knows tells whether kube-apiserver serves the kind at some version.
func (k *Kinds) Knows(gk schema.GroupKind) bool {
	return k.byGK[gk] != nil
}

// Defaults lists the kinds, at each version, that kube-apiserver serves
// by default.
func (k *Kinds) Defaults() []schema.GroupVersionKind {
	var out []schema.GroupVersionKind
	for gk, r := range k.byGK {
		for _, v := range r.versions {
			out = append(out, gk.WithVersion(v))
		}
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionKind) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// ServesResource tells whether kube-apiserver serves the resource gr by
// default at version ("*": at any version).
func (k *Kinds) ServesResource(gr schema.GroupResource, version string) bool {
	for _, r := range k.byGK {
		if r.gr == gr && (version == "*" || slices.Contains(r.versions, version)) {
			return true
		}
	}
	return false
}

// ResourcesInGroup are the resources kube-apiserver serves in a group.
func (k *Kinds) ResourcesInGroup(group string) []string {
	var out []string
	for _, r := range k.byGK {
		if r.gr.Group == group {
			out = append(out, r.gr.Resource)
		}
	}
	slices.Sort(out)
	return out
}
