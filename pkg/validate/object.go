package validate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// one validates one document: what it is decides which checks it gets.
// A result is settled one of three ways: res.fail (it could not be
// checked), res.refuse (the server refuses it before any check of its
// kind), or res.report (the answer of its kind's checks).
func (c *checker) one(ctx context.Context, d *manifest.Document) ObjectResult {
	res := ObjectResult{File: d.File, Line: d.Line, Source: d.Via, Operation: "create", Errors: []Problem{}, Warnings: []Problem{}}
	if d.Err != nil {
		res.fail(d.Err.Msg, Problem{Type: "InputInvalid", Message: d.Err.Msg, Line: d.Err.Line, Column: d.Err.Column})
		return res
	}
	for _, w := range d.Warnings {
		typ := w.Type
		if typ == "" {
			typ = "DuplicateKey"
		}
		res.Warnings = append(res.Warnings, Problem{Type: typ, Message: w.Msg + w.Sent, Line: w.Line, Column: w.Column})
	}
	object, err := d.TakeObject()
	if err != nil {
		res.fail(err.Error())
		return res
	}
	obj := &unstructured.Unstructured{Object: object}
	if typeMetaMissing(&res, d, obj.Object) {
		return res
	}
	if n := requestSize(d.JSON); n > MaxRequestBytes {
		res.refuse(d, Problem{Type: string(metav1.StatusReasonRequestEntityTooLarge),
			Message: fmt.Sprintf("Request entity too large: limit is %d", MaxRequestBytes)})
		return res
	}
	gvk := obj.GroupVersionKind()
	res.APIVersion, res.Kind, res.Namespace, res.Name = obj.GetAPIVersion(), obj.GetKind(), obj.GetNamespace(), obj.GetName()
	if c.opts.Skip != nil && c.opts.Skip(gvk) {
		res.Status, res.Reason = Skipped, "skipped by --skip-kinds"
		return res
	}
	if catalog.IsCRD(manifest.TypeMeta{APIVersion: res.APIVersion, Kind: res.Kind}) {
		c.checkCRD(ctx, d, &res)
		return res
	}
	builtIn, err := c.builtinFor(gvk, d)
	if err != nil {
		res.fail(err.Error())
		return res
	}
	var notServed *builtin.NotServedError
	switch {
	case builtIn.kind != nil:
		c.checkBuiltIn(ctx, d, &res, builtIn.kind, obj)
	case errors.As(builtIn.err, &notServed):
		field := "kind"
		if c.opts.BuiltIn.Knows(gvk.GroupKind()) {
			field = "apiVersion"
		}
		res.refuse(d, Problem{Field: field, Type: "FieldValueNotSupported", Message: builtIn.err.Error()})
	case builtIn.err != nil:
		c.uncheckable(d, &res, obj, builtIn.err.Error())
	default:
		c.checkCustom(ctx, d, &res, obj)
	}
	return res
}

// MaxRequestBytes is the largest request body the API server reads (its
// MaxRequestBodyBytes); a larger object is refused before any check.
const MaxRequestBytes = 3 * 1024 * 1024

// requestSize is the size of the object as kubectl sends it: compact JSON.
func requestSize(js []byte) int {
	if len(js) <= MaxRequestBytes {
		return len(js)
	}
	var b bytes.Buffer
	if json.Compact(&b, js) != nil {
		return len(js)
	}
	return b.Len()
}

// typeMetaMissing reports a document without apiVersion or kind (kubectl
// cannot send it, so it is an error of the input, not an invalid object).
func typeMetaMissing(res *ObjectResult, d *manifest.Document, obj map[string]any) bool {
	var missing []string
	for _, f := range []string{"apiVersion", "kind"} {
		v, ok := obj[f]
		switch s, isString := v.(string); {
		case !ok || v == nil || s == "" && isString:
			res.add(d, Problem{Field: f, Type: string(field.ErrorTypeRequired), Message: "Required value"})
			missing = append(missing, f+" not set")
		case !isString:
			res.add(d, Problem{Field: f, Type: string(field.ErrorTypeInvalid), Message: fmt.Sprintf("Invalid value: %v: must be a string", v)})
			missing = append(missing, f+" not a string")
		}
	}
	if missing == nil {
		return false
	}
	res.fail(strings.Join(missing, ", "))
	return true
}
