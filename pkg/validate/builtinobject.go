package validate

import (
	"context"
	"encoding/json"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// checkBuiltIn checks an object of a kind kube-apiserver serves itself, as
// a create or, when it exists, an update.
func (c *checker) checkBuiltIn(ctx context.Context, d *manifest.Document, res *ObjectResult, kind *builtin.Kind, obj *unstructured.Unstructured) {
	opts := c.optsFor(d)
	old, err := opts.old(ctx, kind.GVK, kind.Resource, kind.Namespaced(), obj)
	if err != nil {
		res.fail(err.Error())
		return
	}
	var out builtin.Result
	if old != nil {
		res.Operation = "update"
		if opts.Replace {
			res.Operation = "replace"
		}
		oldJSON, err := json.Marshal(old)
		if err != nil {
			res.fail(err.Error())
			return
		}
		out = kind.Update(ctx, d.JSON, oldJSON, opts.Keep, opts.Replace, opts.Admission)
	} else {
		out = kind.Create(ctx, d.JSON, opts.Namespace, opts.Keep || typeChecked(kind.GVK), opts.Admission)
	}
	res.report(d, Result{Unknown: out.Unknown, Err: out.Err, Warnings: out.Warnings, Object: out.Object, Admitted: out.Admitted}, opts)
	if out.Err == nil && typeChecked(kind.GVK) && out.Object != nil {
		c.typeWarnings(ctx, d, res, out.Object)
		if !opts.Keep {
			res.Object = nil
		}
	}
	if kind.Deprecated != "" {
		res.warn(d, Problem{Field: "apiVersion", Type: "Deprecated", Message: kind.Deprecated})
	}
}

// typeChecked tells whether objects of gvk are type-checked as the
// server does after storing them (a ValidatingAdmissionPolicy's
// status.typeChecking).
func typeChecked(gvk schema.GroupVersionKind) bool {
	return gvk.Group == "admissionregistration.k8s.io" && gvk.Kind == policies.ValidatingKind
}

// typeWarnings adds the type-check warnings of a ValidatingAdmissionPolicy
// (obj, as stored) against the kinds known, at each expression's line.
func (c *checker) typeWarnings(ctx context.Context, d *manifest.Document, res *ObjectResult, obj map[string]any) {
	warnings, err := TypeWarnings(ctx, obj, c.opts.BuiltIn, catalogOf(c.kinds))
	if err != nil {
		return // the policy was accepted; its status is the server's to write
	}
	for _, w := range warnings {
		res.warn(d, Problem{Field: w.FieldRef, Type: "TypeChecking", Message: w.Warning})
	}
}

// catalogOf is the catalog behind kinds (nil: none).
func catalogOf(kinds Kinds) *catalog.Catalog {
	switch k := kinds.(type) {
	case *catalog.Catalog:
		return k
	case observed:
		return catalogOf(k.Kinds)
	}
	return nil
}
