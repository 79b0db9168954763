package builtin

// The request simulation: one create or update of an object of a Kind,
// as kube-apiserver's handler and registry answer it.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"

	"github.com/go-logr/logr"
	"github.com/kubectl-crd/kubectl-crd/internal/applypatch"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/klog/v2"
	sigsjson "sigs.k8s.io/json"
)

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
	res.Admitted, res.Err = chain.Admit(ctx, request, func() error {
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
	res.Admitted, res.Err = chain.Admit(ctx, request, func() error {
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
