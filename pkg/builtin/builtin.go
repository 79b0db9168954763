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
// Admission (quotas, limit ranges, pod security, policies, webhooks) and
// authorization (RBAC escalation, paramKind access) are the cluster's and
// are not run.
package builtin

import (
	"context"
	"errors"
	"fmt"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"net/http"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"github.com/kubectl-crd/kubectl-crd/internal/applypatch"
	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/endpoints/deprecation"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/warning"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/apiserver/scheme"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	sigsjson "sigs.k8s.io/json"
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

// Result is what the server would say of one object.
type Result struct {
	// Unknown are the paths of the fields the server does not know
	// (fieldValidation=Strict refuses them).
	Unknown []string
	// Err is the server's refusal: an Invalid StatusError whose causes are
	// the field errors, a *DecodeError, another StatusError, or an
	// internal error (a *PanicError; an *applypatch.PanicError where
	// kubectl's apply or the server's code panics too); nil when the
	// object is valid.
	Err error
	// Warnings are the server's warnings (deprecated or ignored fields).
	Warnings []string
	// Object is the object as the server would store it, at the version of
	// the request (with keep).
	Object map[string]any
	// Admitted is what admission policies added: audit annotations, the
	// mutation.
	Admitted policies.Admitted
}

// Create checks body, an object of the kind in JSON, as the server checks
// a create of it in its own namespace, or else in namespace ("default"
// when ""). keep asks for Result.Object.
func (k *Kind) Create(ctx context.Context, body []byte, namespace string, keep bool, chain *policies.Chain) (res Result) {
	defer recovered(&res)
	obj, m, res := k.decode(body)
	if obj == nil {
		return res
	}
	if k.Namespaced() {
		namespace = NamespaceOr(m.GetNamespace(), namespace)
	} else {
		namespace = ""
	}
	RequestManagedFields(m, nil)
	rest.FillObjectMetaSystemFields(m)
	ctx, warnings := k.request(ctx, http.MethodPost, namespace, "")
	request := policies.Request{Object: obj, Kind: k.GVK, Resource: k.Resource, Namespace: namespace, Name: m.GetName(),
		Operation: admission.Create, Options: &metav1.CreateOptions{}, Interfaces: k.interfaces()}
	res.Admitted, res.Err = chain.Run(ctx, request, func() error {
		if m.GetName() == "" && m.GetGenerateName() != "" {
			m.SetName(k.strategy.GenerateName(m.GetGenerateName()))
		}
		if k.begin != nil {
			k.begin(obj, nil)
		}
		return rest.BeforeCreate(k.strategy, ctx, obj)
	})
	return k.finish(res, obj, warnings, keep)
}

// finish adds the server's warnings to res and, with keep, the object it
// would store.
func (k *Kind) finish(res Result, obj runtime.Object, w *Warnings, keep bool) Result {
	res.Warnings = w.List()
	if keep && res.Err == nil {
		res.Object, res.Err = k.encode(obj)
	}
	return res
}

// Update checks body as the server checks the update kubectl apply makes
// of live, the live object in JSON (as a GET returns it, or as a file has
// it): the three-way merge of the configuration last applied, body and
// live, checked against live decoded and defaulted as storage reads it.
// With replace, body itself is the update (a PUT, as kubectl replace
// sends it), at live's resourceVersion when it names none.
func (k *Kind) Update(ctx context.Context, body, live []byte, keep, replace bool, chain *policies.Chain) (res Result) {
	defer recovered(&res)
	old, err := k.decodeLive(live)
	if err != nil {
		return Result{Err: err}
	}
	// The live object as a GET returns it: what storage keeps, encoded.
	stored, err := k.encodeJSON(old)
	if err != nil {
		return Result{Err: err}
	}
	versioned, err := k.scheme.New(k.GVK)
	if err != nil {
		return Result{Err: apierrors.NewInternalError(err)}
	}
	patched, unchanged, err := body, false, error(nil)
	if !replace {
		patched, unchanged, err = applypatch.Apply(body, stored, versioned)
	}
	var panicked *applypatch.PanicError
	if errors.As(err, &panicked) {
		// kubectl crashes or the server answers with an internal error,
		// naming no field: the body's own decoding error, when it has
		// one, does.
		var decoding *DecodeError
		if _, _, alone := k.decode(body); errors.As(alone.Err, &decoding) {
			err = fmt.Errorf("%w; as a new object: %s: %v", err, decoding.Field, decoding)
		}
		return Result{Err: err}
	}
	if err != nil {
		return Result{Err: fmt.Errorf("merging the object into the live %s, as kubectl apply does: %w", k.GVK.Kind, err)}
	}
	if unchanged {
		// kubectl apply sends nothing.
		res := Result{}
		if keep {
			res.Object, res.Err = k.encode(old)
		}
		return res
	}
	obj, m, res := k.decode(patched)
	if obj == nil {
		return res
	}
	oldMeta, err := meta.Accessor(old)
	if err != nil {
		res.Err = apierrors.NewInternalError(err)
		return res
	}
	RequestManagedFields(m, oldMeta)
	if oldMeta.GetResourceVersion() == "" {
		oldMeta.SetResourceVersion("1") // an old object from a file
	}
	if m.GetResourceVersion() == "" {
		m.SetResourceVersion(oldMeta.GetResourceVersion())
	}
	method, options := http.MethodPatch, runtime.Object(&metav1.PatchOptions{})
	if replace {
		method, options = http.MethodPut, &metav1.UpdateOptions{}
	}
	ctx, warnings := k.request(ctx, method, oldMeta.GetNamespace(), oldMeta.GetName())
	request := policies.Request{Object: obj, Old: old, Kind: k.GVK, Resource: k.Resource, Namespace: oldMeta.GetNamespace(), Name: oldMeta.GetName(),
		Operation: admission.Update, Options: options, Interfaces: k.interfaces()}
	res.Admitted, res.Err = chain.Run(ctx, request, func() error {
		if k.begin != nil {
			k.begin(obj, old)
		}
		return rest.BeforeUpdate(k.strategy, ctx, obj, old)
	})
	return k.finish(res, obj, warnings, keep)
}

// decodeLive decodes the live object as storage reads it: defaulted,
// unknown fields dropped.
func (k *Kind) decodeLive(live []byte) (runtime.Object, error) {
	into, err := k.scheme.New(k.hub().WithKind(k.GVK.Kind))
	if err != nil {
		return nil, err
	}
	old, _, err := k.scheme.codecs.DecoderToVersion(k.scheme.plain, k.hub()).Decode(live, &k.GVK, into)
	if err != nil {
		return nil, fmt.Errorf("reading the live %s: %w", k.GVK.Kind, err)
	}
	return old, nil
}

// PanicError is the error of a check that kube-apiserver's code panicked
// in: the server answers such a request with an internal error. The
// message leaves out the stack; Stack keeps it for tests and bug reports.
type PanicError struct {
	Value any
	Stack []byte
}

func (e *PanicError) Error() string {
	return fmt.Sprintf("kube-apiserver's code panicked on this object: %v", e.Value)
}

// recovered turns a panic of the server's code into res's error.
func recovered(res *Result) {
	if r := recover(); r != nil {
		*res = Result{Err: &PanicError{Value: r, Stack: debug.Stack()}}
	}
}

// interfaces are what admission converts and defaults the kind's objects
// with: the kind's scheme.
func (k *Kind) interfaces() admission.ObjectInterfaces {
	return admission.NewObjectInterfacesFromScheme(k.scheme.Scheme)
}

// hub is the version objects are decoded to and checked at.
func (k *Kind) hub() schema.GroupVersion {
	return schema.GroupVersion{Group: k.GVK.Group, Version: runtime.APIVersionInternal}
}

// request is the context of the server's request for the object: its
// namespace, its request info (declarative validation reads the version
// and resource from it), a recorder of warnings, and no request logging.
func (k *Kind) request(ctx context.Context, method, namespace, name string) (context.Context, *Warnings) {
	path := "/apis/" + k.Resource.Group + "/" + k.Resource.Version
	if k.Resource.Group == "" {
		path = "/api/" + k.Resource.Version
	}
	if namespace != "" {
		path += "/namespaces/" + namespace
	}
	path += "/" + k.Resource.Resource
	if name != "" {
		path += "/" + name
	}
	ctx, w := RecordWarnings(ctx)
	ctx = genericapirequest.WithNamespace(ctx, namespace)
	req, err := http.NewRequestWithContext(ctx, method, path, nil)
	if err == nil {
		if info, err := k.kinds.paths.NewRequestInfo(req); err == nil {
			ctx = genericapirequest.WithRequestInfo(ctx, info)
		}
	}
	return klog.NewContext(ctx, logr.Discard()), w
}

// encode writes obj at the version of the request, as the server returns
// it.
func (k *Kind) encode(obj runtime.Object) (map[string]any, error) {
	js, err := k.encodeJSON(obj)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	return out, sigsjson.UnmarshalCaseSensitivePreserveInts(js, &out)
}

func (k *Kind) encodeJSON(obj runtime.Object) ([]byte, error) {
	return runtime.Encode(k.scheme.codecs.LegacyCodec(k.GVK.GroupVersion()), obj)
}

// RecordWarnings gives ctx a recorder of the server's warnings (what
// warning.AddWarning adds): the request's.
func RecordWarnings(ctx context.Context) (context.Context, *Warnings) {
	w := &Warnings{}
	return warning.WithWarningRecorder(ctx, w), w
}

// Warnings records the server's warnings for one request, each once.
type Warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *Warnings) AddWarning(_, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.seen, text) {
		w.seen = append(w.seen, text)
	}
}

// List is the warnings, in the order recorded.
func (w *Warnings) List() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
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

// NamespaceOr is where kubectl sends a namespaced object: its own
// namespace, else namespace (the context's, or -n), else "default". The
// one place the default is.
func NamespaceOr(own, namespace string) string {
	switch {
	case own != "":
		return own
	case namespace != "":
		return namespace
	}
	return metav1.NamespaceDefault
}
