package sample

import (
	"maps"
	"slices"
	"strconv"

	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

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

// choices are a generator's choices, saved to be restored.
type choices struct {
	variant       map[string]int
	omit, include map[string]bool
}

func (g *generator) save() choices {
	return choices{maps.Clone(g.variant), maps.Clone(g.omit), maps.Clone(g.include)}
}

func (g *generator) restore(c choices) {
	g.variant, g.omit, g.include = c.variant, c.omit, c.include
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
	if s.Default != nil && n == 0 && g.takesDefault(s, path) {
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

// takesDefault tells whether the value at path is the schema's default:
// the first choice, but for an object or a list in a full sample, whose
// default would stand for every field the schema has under it (a
// repair may still choose it).
func (g *generator) takesDefault(s *apiextensionsv1.JSONSchemaProps, path string) bool {
	first := g.choose(path+"#default", 2) == 0
	if g.full && (s.Type == "object" || s.Type == "array") {
		return !first
	}
	return first
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

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
