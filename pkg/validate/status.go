package validate

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
)

// HasStatus tells whether the version has the status subresource.
func (v *Validator) HasStatus() bool { return v.status != nil }

// UpdateStatus checks obj (not changed) as the server checks a write of
// its status through the status subresource over old, the stored object:
// everything but the status comes from old, and the status is checked
// against the status schema and its rules (with oldSelf and ratcheting).
// Result.Object is the object as the server would then store it.
func (v *Validator) UpdateStatus(ctx context.Context, obj, old map[string]any) Result {
	if v.status == nil {
		return Result{Err: fmt.Errorf("%s has no status subresource", v.gvk.GroupKind())}
	}
	u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
	unknown, err := decodeBody(u.Object, v.structural, v.preserveUnknownFields)
	if err != nil {
		return Result{Err: err}
	}
	res := Result{Unknown: unknown}
	o := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(old)}
	namespace := ""
	if v.strategy.NamespaceScoped() {
		namespace = o.GetNamespace()
	}
	if u.GetResourceVersion() == "" {
		u.SetResourceVersion(o.GetResourceVersion())
	}
	ctx = quiet(genericapirequest.WithNamespace(ctx, namespace))
	res.Err = rest.BeforeUpdate(v.status, ctx, u, o)
	res.Object = u.Object
	return res
}
