package validate

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/internal/applypatch"
	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"
)

// old is the object obj would update (nil: a create): looked up by its
// kind's resource, in its namespace, or else opts.Namespace, for a
// namespaced kind.
func (opts Options) old(ctx context.Context, gvk schema.GroupVersionKind, gvr schema.GroupVersionResource, namespaced bool, obj *unstructured.Unstructured) (map[string]any, error) {
	if opts.Old == nil || obj.GetName() == "" {
		return nil, nil
	}
	ns := ""
	if namespaced {
		ns = builtin.NamespaceOr(obj.GetNamespace(), opts.Namespace)
	}
	return opts.Old(ctx, gvk, gvr, ns, obj.GetName())
}

// applied checks the update kubectl apply makes of old, the live custom
// resource, with the document's object body: old patched as kubectl
// patches it, checked as an update of old. When the patch is empty, kubectl
// sends nothing and the object is valid.
func applied(ctx context.Context, v *Validator, body []byte, old map[string]any, keep bool, chain *policies.Chain) Result {
	live, err := json.Marshal(old)
	if err != nil {
		return Result{Err: err}
	}
	patched, unchanged, err := applypatch.Apply(body, live, nil)
	if err != nil {
		return Result{Err: fmt.Errorf("merging the object into the live one, as kubectl apply does: %w", err)}
	}
	if unchanged {
		res := Result{}
		if keep {
			res.Object = runtime.DeepCopyJSON(old)
		}
		return res
	}
	var obj map[string]any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(patched, &obj); err != nil {
		return Result{Err: err}
	}
	return v.update(ctx, obj, old, chain, &metav1.PatchOptions{})
}

// appliedCRD checks the update kubectl apply makes of old, the live CRD,
// with the CRD document body (a JSON merge patch: kubectl has no Go type
// for CRDs); a v1beta1 document, which the server no longer serves, as a
// replace.
func appliedCRD(ctx context.Context, body []byte, old *apiextensionsv1.CustomResourceDefinition, chain *policies.Chain) Result {
	if tm := (&manifest.Document{JSON: body}).TypeMeta(); tm.APIVersion != apiextensionsv1.SchemeGroupVersion.String() {
		return admittedCRD(ctx, body, old, chain, nil)
	}
	typed := *old // a typed client's CRD has no apiVersion and kind
	typed.TypeMeta = metav1.TypeMeta{APIVersion: apiextensionsv1.SchemeGroupVersion.String(), Kind: "CustomResourceDefinition"}
	live, err := json.Marshal(&typed)
	if err != nil {
		return Result{Err: err}
	}
	patched, unchanged, err := applypatch.Apply(body, live, nil)
	switch {
	case err != nil:
		return Result{Err: fmt.Errorf("merging the CRD into the live one, as kubectl apply does: %w", err)}
	case unchanged:
		return Result{}
	}
	return admittedCRD(ctx, patched, old, chain, &metav1.PatchOptions{})
}
