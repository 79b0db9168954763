package validate

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// one validates one document.
func (c *checker) one(ctx context.Context, d *manifest.Document) ObjectResult {
	opts := c.opts
	res := ObjectResult{File: d.File, Line: d.Line, Operation: "create", Errors: []Problem{}, Warnings: []Problem{}}
	if d.Err != nil {
		res.Status, res.Reason = Errored, d.Err.Msg
		res.Errors = append(res.Errors, Problem{Type: "InputInvalid", Message: d.Err.Msg, Line: d.Err.Line, Column: d.Err.Column})
		return res
	}
	for _, w := range d.Warnings {
		res.Warnings = append(res.Warnings, Problem{Type: "DuplicateKey", Message: w.Msg + w.Sent, Line: w.Line, Column: w.Column})
	}
	object, err := d.TakeObject()
	if err != nil {
		res.Status, res.Reason = Errored, err.Error()
		return res
	}
	obj := &unstructured.Unstructured{Object: object}
	if typeMetaMissing(&res, d, obj.Object) {
		return res
	}
	if n := requestSize(d.JSON); n > MaxRequestBytes {
		res.add(d, Problem{Type: string(metav1.StatusReasonRequestEntityTooLarge),
			Message: fmt.Sprintf("Request entity too large: limit is %d", MaxRequestBytes)})
		res.Status = Invalid
		return res
	}
	gvk := obj.GroupVersionKind()
	res.APIVersion, res.Kind, res.Namespace, res.Name = obj.GetAPIVersion(), obj.GetKind(), obj.GetNamespace(), obj.GetName()
	if opts.Skip != nil && opts.Skip(gvk) {
		res.Status, res.Reason = Skipped, "skipped by --skip-kinds"
		return res
	}
	if catalog.IsCRD(manifest.TypeMeta{APIVersion: res.APIVersion, Kind: res.Kind}) {
		var old *apiextensionsv1.CustomResourceDefinition
		if opts.OldCRD != nil && res.Name != "" {
			if old, err = opts.OldCRD(ctx, res.Name); err != nil {
				res.Status, res.Reason = Errored, err.Error()
				return res
			}
		}
		if old == nil {
			res.report(d, admittedCRD(ctx, d.JSON, nil, opts.Admission, nil), opts)
			return res
		}
		res.Operation = "update"
		if opts.Replace {
			res.Operation = "replace"
			res.report(d, admittedCRD(ctx, d.JSON, old, opts.Admission, nil), opts)
			return res
		}
		res.report(d, appliedCRD(ctx, d.JSON, old, opts.Admission), opts)
		return res
	}
	builtIn, err := c.builtinFor(gvk, d)
	if err != nil {
		res.Status, res.Reason = Errored, err.Error()
		return res
	}
	var notServed *builtin.NotServedError
	switch {
	case builtIn.kind != nil:
		c.checkBuiltIn(ctx, d, &res, builtIn.kind, obj)
		return res
	case errors.As(builtIn.err, &notServed):
		field := "kind"
		if c.opts.BuiltIn.Knows(gvk.GroupKind()) {
			field = "apiVersion"
		}
		res.add(d, Problem{Field: field, Type: "FieldValueNotSupported", Message: builtIn.err.Error()})
		res.Status = Invalid
		return res
	case builtIn.err != nil:
		c.uncheckable(d, &res, obj, builtIn.err.Error())
		return res
	}
	found, err := c.crdFor(ctx, gvk.GroupKind(), d)
	if err != nil {
		res.Status, res.Reason = Errored, err.Error()
		return res
	}
	if found == nil {
		c.noCRD(ctx, d, &res, obj)
		return res
	}
	crd := found.CustomResourceDefinition
	if !apihelpers.HasServedCRDVersion(crd, gvk.Version) {
		res.add(d, Problem{Field: "apiVersion", Type: "FieldValueNotSupported", Message: catalog.NotServed(found.CRD, gvk.Version)})
		res.Status = Invalid
		return res
	}
	if version := catalog.VersionNamed(crd, gvk.Version); version.Deprecated {
		p := Problem{Field: "apiVersion", Type: "Deprecated", Message: catalog.DeprecationWarning(crd, version)}
		p.Line, p.Column = d.Position(p.Field)
		res.Warnings = append(res.Warnings, p)
	}
	v, err := c.validatorFor(ctx, gvk, found)
	if err != nil {
		res.Status, res.Reason = Errored, err.Error()
		return res
	}
	old, err := opts.old(ctx, gvk, gvk.GroupVersion().WithResource(crd.Spec.Names.Plural), crd.Spec.Scope == apiextensionsv1.NamespaceScoped, obj)
	if err != nil {
		res.Status, res.Reason = Errored, err.Error()
		return res
	}
	var out Result
	switch {
	case old != nil && opts.Replace:
		res.Operation = "replace"
		out = v.update(ctx, obj.Object, old, opts.Admission, nil)
	case old != nil:
		res.Operation = "update"
		out = applied(ctx, v, d.JSON, old, opts.Keep, opts.Admission)
	default:
		out = v.create(ctx, obj.Object, opts.Namespace, opts.Admission)
	}
	res.report(d, out, opts)
	return res
}

// noCRD fills the result of an object whose kind no CRD defines: invalid
// when CRDs here define other kinds of its group (a misspelt kind: the
// server has no match for it), with the closest; else uncheckable.
func (c *checker) noCRD(ctx context.Context, d *manifest.Document, res *ObjectResult, obj *unstructured.Unstructured) {
	gvk := obj.GroupVersionKind()
	kinds, err := c.groups.Get(gvk.Group, func() ([]string, error) {
		c.lookups.Lock()
		defer c.lookups.Unlock()
		return c.kinds.KindsInGroup(ctx, gvk.Group)
	})
	if err != nil {
		res.Status, res.Reason = Errored, err.Error()
		return
	}
	if len(kinds) == 0 {
		c.uncheckable(d, res, obj, fmt.Sprintf("no CustomResourceDefinition for %s", gvk.GroupKind()))
		return
	}
	msg := fmt.Sprintf("no matches for kind %q in version %q", gvk.Kind, gvk.GroupVersion())
	if close := catalog.Closest(gvk.Kind, kinds); len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, " or ") + "?"
	} else {
		msg += fmt.Sprintf(" (the CustomResourceDefinitions of %s define %s)", gvk.Group, strings.Join(kinds, ", "))
	}
	res.add(d, Problem{Field: "kind", Type: "FieldValueNotSupported", Message: msg})
	res.Status = Invalid
}

// uncheckable fills the result of an object of a kind kubectl crd cannot
// check as the server does, for reason: checked against the schema the
// cluster publishes for the kind when it publishes one, else unchecked.
func (c *checker) uncheckable(d *manifest.Document, res *ObjectResult, obj *unstructured.Unstructured, reason string) {
	p, err := c.publishedFor(obj.GroupVersionKind(), d)
	switch {
	case err != nil:
		res.Status, res.Reason = Errored, err.Error()
	case p != nil:
		res.checkPublished(d, p, obj, c.opts)
	default:
		res.unchecked(d, reason, c.opts)
	}
}

// unchecked fills the result of an object of a kind kubectl crd cannot
// check, for reason: skipped, or with --strict-kinds invalid.
func (res *ObjectResult) unchecked(d *manifest.Document, reason string, opts Options) {
	if !opts.StrictKinds {
		res.Status, res.Reason = Skipped, reason
		return
	}
	res.add(d, Problem{Field: "kind", Type: "FieldValueNotFound",
		Message: fmt.Sprintf("no matches for kind %q in version %q: %s", res.Kind, res.APIVersion, reason)})
	res.Status = Invalid
}

// checkBuiltIn checks an object of a kind kube-apiserver serves itself, as
// a create or, when it exists, an update.
func (c *checker) checkBuiltIn(ctx context.Context, d *manifest.Document, res *ObjectResult, kind *builtin.Kind, obj *unstructured.Unstructured) {
	opts := c.opts
	old, err := opts.old(ctx, kind.GVK, kind.Resource, kind.Namespaced(), obj)
	if err != nil {
		res.Status, res.Reason = Errored, err.Error()
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
			res.Status, res.Reason = Errored, err.Error()
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
		p := Problem{Field: "apiVersion", Type: "Deprecated", Message: kind.Deprecated}
		p.Line, p.Column = d.Position(p.Field)
		res.Warnings = append(res.Warnings, p)
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
		p := Problem{Field: w.FieldRef, Type: "TypeChecking", Message: w.Warning}
		p.Line, p.Column = d.Position(placeOf(p.Field))
		res.Warnings = append(res.Warnings, p)
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
	res.Status, res.Reason = Errored, strings.Join(missing, ", ")
	return true
}

// report records a Result's unknown fields and causes.
func (res *ObjectResult) report(d *manifest.Document, out Result, opts Options) {
	for _, u := range out.Unknown {
		p := Problem{Field: u, Type: "FieldValueUnknown", Message: fmt.Sprintf("unknown field %q", u)}
		switch opts.Unknown {
		case "warn":
			p.Line, p.Column = d.Position(u)
			res.Warnings = append(res.Warnings, p)
		case "ignore":
		default:
			res.add(d, p)
		}
	}
	for _, c := range out.Causes() {
		p := Problem{Field: c.Field, Type: c.Type, Message: c.Message}
		p.Policy, p.Binding = policies.Named(c.Message)
		res.add(d, p)
	}
	if p, ok := mutationRefused(out.Err); ok {
		res.add(d, p)
	}
	res.Audit = out.Admitted.Audit
	if out.Admitted.Mutation != nil {
		res.Mutation = json.RawMessage(out.Admitted.Mutation)
		res.Mutations = out.Admitted.Changes
	}
	for _, w := range out.Warnings {
		p := Problem{Field: warningField(w), Type: "Warning", Message: w}
		p.Policy, p.Binding = policies.Named(w)
		p.Line, p.Column = d.Position(placeOf(p.Field))
		res.Warnings = append(res.Warnings, p)
	}
	// The server lists causes in no fixed order: report them in the
	// order of the file.
	byPlace := func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), strings.Compare(a.Field, b.Field), strings.Compare(a.Message, b.Message))
	}
	slices.SortStableFunc(res.Errors, byPlace)
	slices.SortStableFunc(res.Warnings, byPlace)
	res.Status = Valid
	if len(res.Errors) > 0 {
		res.Status = Invalid
	} else if opts.Keep {
		res.Object = out.Object
	}
}

// add adds an error, placed at its field in the document.
func (res *ObjectResult) add(d *manifest.Document, p Problem) {
	p.Line, p.Column = d.Position(placeOf(p.Field))
	res.Errors = append(res.Errors, p)
}

// crdVersionFields are the fields the server's internal CRD type keeps at
// the top of spec when every version has the same (and names them there in
// its errors); a v1 file has them in each version.
var crdVersionFields = []string{"spec.validation.", "spec.subresources.", "spec.additionalPrinterColumns", "spec.selectableFields"}

// PlaceOf is the path in a CRD document (v1) of a field the server
// names in the internal CRD (spec.validation. for a schema every version
// shares), for looking its place up.
func PlaceOf(field string) string { return placeOf(field) }

// placeOf is the path to look up for a field the server names.
func placeOf(field string) string {
	for _, f := range crdVersionFields {
		if strings.HasPrefix(field, f) {
			rest := strings.TrimPrefix(field, "spec.")
			rest = strings.Replace(rest, "validation.", "schema.", 1)
			return "spec.versions[0]." + rest
		}
	}
	return field
}

// warningPath is a server warning that starts with the field it is about.
// Compiled when first needed: nothing is done when the program starts.
var warningPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^([A-Za-z_$][\w$-]*(?:\[[^\]]*\])*(?:\.[A-Za-z_$][\w$-]*(?:\[[^\]]*\])*)*): `)
})

// warningField is the field a server warning names first, "" when none.
func warningField(w string) string {
	if m := warningPath().FindStringSubmatch(w); m != nil {
		return m[1]
	}
	return ""
}
