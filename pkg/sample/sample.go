// Package sample makes objects of a CRD version that the API server
// accepts as a create: the required fields (or, with Full, every field)
// with values that meet the schema, checked with the server's own
// validation (pkg/validate: schema, metadata, list types, CEL rules), and
// repaired where a rule refuses them.
package sample

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Options choose what a sample holds.
type Options struct {
	// Full fills every field, one branch of each choice (oneOf, anyOf),
	// rather than only the fields the server requires after defaulting.
	Full bool
}

// Sample is an object of a CRD version and the server's verdict on it.
type Sample struct {
	Object map[string]any
	// Refused are the field errors the server gives for the object as a
	// create; none when it accepts it.
	Refused []validate.FieldError
	// Checks is how many objects were validated to find this one.
	Checks int
	// LeftOut are the fields a full sample does not have, and why: the
	// server refused the object with them (see Make).
	LeftOut []LeftOut
}

// LeftOut is a field of the schema that a full sample leaves out: Why is
// the server's refusal that leaving it out answered.
type LeftOut struct {
	Field string
	Why   validate.FieldError
}

// maxChecks bounds the repairs: each is one validation of the object.
const maxChecks = 300

// Make makes a sample of the CRD version. Status is left out: on a
// create the server drops it where the status subresource is on, and it
// is the controller's to write.
func Make(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, version string, opts Options) (*Sample, error) {
	v := catalog.VersionNamed(crd, version)
	if v == nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s has no version %q", crd.Name, version)
	}
	root, err := explain.Schema(crd, version)
	if err != nil {
		return nil, err
	}
	validator, err := validate.NewValidator(crd, version)
	if err != nil {
		return nil, err
	}
	g := &generator{full: opts.Full, name: dnsName(crd.Spec.Names.Kind), variant: map[string]int{}, omit: map[string]bool{}, include: map[string]bool{}}
	check := func() (map[string]any, []validate.FieldError) {
		g.points = g.points[:0]
		obj := g.object(root, "", 0, true)
		obj["apiVersion"] = version
		if crd.Spec.Group != "" {
			obj["apiVersion"] = crd.Spec.Group + "/" + version
		}
		obj["kind"] = crd.Spec.Names.Kind
		obj["metadata"] = map[string]any{"name": g.name}
		res := validator.Create(ctx, obj, "")
		causes := res.Causes()
		for _, u := range res.Unknown {
			causes = append(causes, validate.FieldError{Field: u, Type: "FieldValueUnknown", Message: "unknown field " + strconv.Quote(u)})
		}
		// The server lists its causes in no fixed order (its schema
		// validator walks maps); repairs are tried in the causes' order and
		// the first that helps is kept, so they are put in one order for
		// the same sample every run.
		slices.SortFunc(causes, func(a, b validate.FieldError) int {
			return cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(a.Type, b.Type), strings.Compare(a.Message, b.Message))
		})
		return obj, causes
	}
	obj, causes := check()
	s := &Sample{Checks: 1}
	leftOut := map[string]validate.FieldError{}
	// settle repairs until the server accepts the object, or no repair
	// helps. A repair is kept when fewer refusals remain, or as many but
	// others not seen before (a field put in to meet a rule may need a
	// repair of its own); no repair may leave out a field of keep (or
	// one that holds it).
	keep := map[string]bool{}
	kept := func(f string) bool {
		for k := range keep {
			if f == k || under(k, f) {
				return true
			}
		}
		return false
	}
	settle := func() {
		seen := map[string]bool{signature(causes): true}
		for len(causes) > 0 && s.Checks < maxChecks {
			better := false
			for _, try := range g.repairs(causes) {
				if slices.ContainsFunc(try.omits, kept) {
					continue
				}
				undo := try.do()
				o, c := check()
				s.Checks++
				if len(c) < len(causes) || len(c) == len(causes) && !seen[signature(c)] {
					seen[signature(c)] = true
					for _, f := range try.omits {
						leftOut[f] = causes[0]
					}
					obj, causes, better = o, c, true
					break
				}
				undo()
				if s.Checks >= maxChecks {
					break
				}
			}
			if !better {
				break
			}
		}
	}
	settle()
	if opts.Full && len(causes) == 0 {
		// A field left out early may fit once later repairs are made (a
		// rule against two fields together, one of them since left out):
		// each is put back, shallow ones first, and kept, for good, when
		// the server accepts the object again after repairs that leave
		// it, and those put back before it, in.
		for _, f := range slices.SortedFunc(maps.Keys(leftOut), func(a, b string) int { return cmp.Or(depth(a)-depth(b), strings.Compare(a, b)) }) {
			if !g.omit[f] || s.Checks >= maxChecks {
				continue
			}
			saved := g.save()
			g.omit[f], keep[f] = false, true
			obj, causes = check()
			s.Checks++
			settle()
			if len(causes) > 0 {
				delete(keep, f)
				g.restore(saved)
				obj, causes = check()
				s.Checks++
			}
		}
	}
	if len(causes) > 0 {
		obj, _ = check() // the object of the choices kept
	}
	s.Object, s.Refused = obj, causes
	if opts.Full {
		// Of what repairs left out, what the sample keeps out, but for
		// fields inside one that is out.
		out := map[string]validate.FieldError{}
		for f, why := range leftOut {
			if g.omit[f] {
				out[f] = why
			}
		}
		for _, f := range slices.Sorted(maps.Keys(out)) {
			if !within(out, f) {
				s.LeftOut = append(s.LeftOut, LeftOut{Field: strings.TrimSuffix(f, "[+]"), Why: out[f]})
			}
		}
	}
	return s, nil
}

// within tells whether field f is under another field of left.
func within(left map[string]validate.FieldError, f string) bool {
	for p := range left {
		if under(f, p) {
			return true
		}
	}
	return false
}

func signature(causes []validate.FieldError) string {
	var b strings.Builder
	for _, c := range causes {
		b.WriteString(c.Field + "\x00" + c.Message + "\x00")
	}
	return b.String()
}
