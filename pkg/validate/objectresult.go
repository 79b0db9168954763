package validate

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
)

// unchecked fills the result of an object of a kind kubectl crd cannot
// check, for reason: skipped, or with --strict-kinds invalid.
func (res *ObjectResult) unchecked(d *manifest.Document, reason string, opts Options) {
	if !opts.StrictKinds {
		res.Status, res.Reason = Skipped, reason
		return
	}
	res.refuse(d, Problem{Field: "kind", Type: "FieldValueNotFound",
		Message: fmt.Sprintf("no matches for kind %q in version %q: %s", res.Kind, res.APIVersion, reason)})
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
		res.warn(d, p)
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

// warn adds a warning, placed at its field in the document.
func (res *ObjectResult) warn(d *manifest.Document, p Problem) {
	p.Line, p.Column = d.Position(placeOf(p.Field))
	res.Warnings = append(res.Warnings, p)
}

// refuse settles the result as the server's refusal of the object before
// any check of its kind (too large, a version or kind not served): p is
// the one error.
func (res *ObjectResult) refuse(d *manifest.Document, p Problem) {
	res.add(d, p)
	res.Status = Invalid
}

// fail settles the result as not checked: something kept it from being
// checked (the input, a lookup), said in reason; at, when given, places
// what went wrong in the document.
func (res *ObjectResult) fail(reason string, at ...Problem) {
	res.Status, res.Reason = Errored, reason
	res.Errors = append(res.Errors, at...)
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
