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
	"slices"
	"strconv"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
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
	// A repair is kept when fewer refusals remain, or as many but others
	// not seen before (a field put in to meet a rule may need a repair of
	// its own).
	seen := map[string]bool{signature(causes): true}
	for len(causes) > 0 && s.Checks < maxChecks {
		better := false
		for _, try := range g.repairs(causes) {
			undo := try()
			o, c := check()
			s.Checks++
			if len(c) < len(causes) || len(c) == len(causes) && !seen[signature(c)] {
				seen[signature(c)] = true
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
	if len(causes) > 0 {
		obj, _ = check() // the object of the choices kept
	}
	s.Object, s.Refused = obj, causes
	return s, nil
}

func signature(causes []validate.FieldError) string {
	var b strings.Builder
	for _, c := range causes {
		b.WriteString(c.Field + "\x00" + c.Message + "\x00")
	}
	return b.String()
}

// generator builds an object from a schema; its choices are what the
// repairs change.
type generator struct {
	full bool
	name string // the object's metadata.name
	// variant picks among the values at a path (enum values, bounds,
	// branches of a choice, true or false, int or string).
	variant map[string]int
	// omit and include override whether an optional field (or one more
	// item or entry, at PATH[+]) is in the object.
	omit, include map[string]bool
	// points are the choices the last object was built with.
	points []point
}

// point is a choice made at a path: among options values, or whether an
// optional part is present.
type point struct {
	path     string
	options  int  // > 1: a choice among values
	optional bool // an optional field or an extra item
	present  bool
}

// choose records a choice among options at path and returns it.
func (g *generator) choose(path string, options int) int {
	if options <= 1 {
		return 0
	}
	g.points = append(g.points, point{path: path, options: options})
	return g.variant[path] % options
}

// has records an optional part at path and tells whether it is in.
func (g *generator) has(path string, byDefault bool) bool {
	in := (byDefault || g.include[path]) && !g.omit[path]
	g.points = append(g.points, point{path: path, optional: true, present: in})
	return in
}

// value makes a value for s at path; n makes it the n-th of several
// distinct ones.
func (g *generator) value(s *apiextensionsv1.JSONSchemaProps, path string, n int) any {
	s, excluded := g.resolve(s, path)
	if s.Default != nil && n == 0 && g.choose(path+"#default", 2) == 0 {
		// The author's own value, which the server checked against the
		// schema when it took the CRD.
		var v any
		if utiljson.Unmarshal(s.Default.Raw, &v) == nil {
			return v
		}
	}
	switch {
	case s.XIntOrString:
		if g.choose(path+"#int-or-string", 2) == 1 || (s.Pattern != "" && len(s.Enum) == 0 && !matches(s.Pattern, "1")) {
			return str(s, n, g.choose(path, 2), g.name)
		}
		return number(s, true, n, g.choose(path, 2))
	case s.Type == "object" || (s.Type == "" && (len(s.Properties) > 0 || s.AdditionalProperties != nil)):
		return g.objectExcluding(s, path, n, false, excluded)
	case s.Type == "array":
		return g.array(s, path, n)
	case s.Type == "string":
		options := 1 + len(shapes(g.name)) // other values of the format or pattern, or other shapes
		if len(s.Enum) > 0 {
			options = len(s.Enum)
		}
		return str(s, n, g.choose(path, options), g.name)
	case s.Type == "integer":
		return number(s, true, n, g.choose(path, 2))
	case s.Type == "number":
		return number(s, false, n, g.choose(path, 2))
	case s.Type == "boolean":
		if len(s.Enum) > 0 {
			return enumValue(s.Enum, n)
		}
		return (g.choose(path, 2)+n)%2 == 1
	}
	return map[string]any{} // x-kubernetes-preserve-unknown-fields, any value
}

func (g *generator) object(s *apiextensionsv1.JSONSchemaProps, path string, n int, root bool) map[string]any {
	s, excluded := g.resolve(s, path)
	return g.objectExcluding(s, path, n, root, excluded)
}

// objectExcluding fills an object: its required fields without defaults
// (all fields when full), but not those excluded by a choice; then
// optional ones up to minProperties, and a map's entries.
func (g *generator) objectExcluding(s *apiextensionsv1.JSONSchemaProps, path string, n int, root bool, excluded map[string]bool) map[string]any {
	out := map[string]any{}
	if s.XEmbeddedResource {
		out["apiVersion"], out["kind"] = "v1", "ConfigMap"
		out["metadata"] = map[string]any{"name": "sample"}
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	var optional []explain.Child
	var values *apiextensionsv1.JSONSchemaProps
	for _, c := range explain.Children(s) {
		switch {
		case c.Step == explain.Values:
			values = c.Schema
			continue
		case c.Step != explain.Property:
			continue
		case root && (c.Name == "apiVersion" || c.Name == "kind" || c.Name == "metadata" || c.Name == "status"):
			continue
		case s.XEmbeddedResource && (c.Name == "apiVersion" || c.Name == "kind" || c.Name == "metadata"):
			continue
		case excluded[c.Name] && !required[c.Name]:
			continue
		}
		p := join(path, c.Name)
		switch {
		case required[c.Name] && (c.Schema.Default == nil || g.full):
			out[c.Name] = g.value(c.Schema, p, n)
		case required[c.Name]:
			// The server defaults it; a repair may still set it.
			if g.has(p, false) {
				out[c.Name] = g.value(c.Schema, p, n)
			}
		case root && c.Name == "spec":
			// spec, the object's desired state, is in even where the
			// schema does not require it (and no repair takes it out): a
			// sample without it shows nothing of the kind.
			out[c.Name] = g.value(c.Schema, p, n)
		case g.has(p, g.full):
			out[c.Name] = g.value(c.Schema, p, n)
		default:
			optional = append(optional, c)
		}
	}
	if s.MinProperties != nil {
		for _, c := range optional {
			if len(out) >= int(*s.MinProperties) {
				break
			}
			out[c.Name] = g.value(c.Schema, join(path, c.Name), n)
		}
	}
	if values != nil {
		count := 0
		if g.full {
			count = 1
		}
		if s.MinProperties != nil {
			count = max(count, int(*s.MinProperties)-len(out))
		}
		if s.MaxProperties == nil || count < int(*s.MaxProperties) {
			if g.has(path+"[+]", false) {
				count++
			}
		}
		for i := range count {
			key := keyName(n + i)
			out[key] = g.value(values, path+"["+key+"]", n+i)
		}
	}
	if s.MaxProperties != nil {
		for _, c := range slices.Backward(explain.Children(s)) {
			if len(out) <= int(*s.MaxProperties) {
				break
			}
			if c.Step == explain.Property && !required[c.Name] {
				delete(out, c.Name)
			}
		}
	}
	return out
}

// array fills an array with minItems items (one at least when full),
// distinct ones, as sets and map lists need.
func (g *generator) array(s *apiextensionsv1.JSONSchemaProps, path string, n int) []any {
	count := 0
	if s.MinItems != nil {
		count = int(*s.MinItems)
	}
	if g.full && count == 0 {
		count = 1
	}
	if s.MaxItems == nil || count < int(*s.MaxItems) {
		if g.has(path+"[+]", false) {
			count++
		}
	}
	if s.MaxItems != nil {
		count = min(count, int(*s.MaxItems))
	}
	out := make([]any, 0, count)
	if s.Items == nil || s.Items.Schema == nil {
		return out
	}
	for i := range count {
		out = append(out, g.value(s.Items.Schema, path+"["+strconv.Itoa(i)+"]", n+i))
	}
	return out
}

// repairs are the changes worth trying for the first refusal: at the
// choices under the refused field (or above it), another value, and
// optional parts left out or put in. Each returns its undo.
func (g *generator) repairs(causes []validate.FieldError) []func() func() {
	field := strings.TrimPrefix(causes[0].Field, ".")
	related := func(p string) bool {
		return field == "" || field == "<nil>" || p == field || under(p, field) || under(field, p)
	}
	// The choices inside the refused field first, shallow ones first (a
	// rule on an object is about its fields); then those of the objects
	// around it, the nearest first.
	var points []point
	for _, pt := range g.points {
		if pt.path == field || under(pt.path, field) || field == "" || field == "<nil>" {
			points = append(points, pt)
		}
	}
	slices.SortStableFunc(points, func(a, b point) int { return depth(a.path) - depth(b.path) })
	var around []point
	for _, pt := range g.points {
		if under(field, pt.path) {
			around = append(around, pt)
		}
	}
	slices.SortStableFunc(around, func(a, b point) int { return depth(b.path) - depth(a.path) })
	points = append(points, around...)
	var out []func() func()
	var direct []string // optional fields of the refused object, present
	for _, pt := range points {
		if !related(pt.path) {
			continue
		}
		switch {
		case pt.optional && pt.present && parent(pt.path) == field:
			direct = append(direct, pt.path)
		case pt.optional && pt.present:
			out = append(out, g.setFlag(g.omit, pt.path))
		case pt.optional:
			out = append(out, g.setFlag(g.include, pt.path))
		default:
			for alt := 1; alt < pt.options; alt++ {
				path, next := pt.path, (g.variant[pt.path]+alt)%pt.options
				out = append(out, func() func() {
					old := g.variant[path]
					g.variant[path] = next
					return func() { g.variant[path] = old }
				})
			}
		}
	}
	// The refused object's own optional fields first, one left out at a
	// time; then, for a rule that allows at most one of several fields,
	// each one kept alone.
	var first []func() func()
	for _, p := range direct {
		first = append(first, g.setFlag(g.omit, p))
	}
	for _, keep := range direct {
		if len(direct) < 3 {
			break
		}
		first = append(first, func() func() {
			var undo []func()
			for _, p := range direct {
				if p != keep {
					undo = append(undo, g.setFlag(g.omit, p)())
				}
			}
			return func() {
				for _, u := range undo {
					u()
				}
			}
		})
	}
	return append(first, out...)
}

// depth counts a path's steps.
func depth(p string) int {
	return strings.Count(p, ".") + strings.Count(p, "[") + strings.Count(p, "#")
}

// parent is the object a field path is in ("" at the top).
func parent(p string) string {
	i := strings.LastIndexAny(p, ".[#")
	if i < 0 {
		return ""
	}
	return p[:i]
}

func (g *generator) setFlag(m map[string]bool, path string) func() func() {
	return func() func() {
		old := m[path]
		m[path] = true
		return func() { m[path] = old }
	}
}

// under tells whether path p is inside field f.
func under(p, f string) bool {
	return strings.HasPrefix(p, f+".") || strings.HasPrefix(p, f+"[") || strings.HasPrefix(p, f+"#")
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
