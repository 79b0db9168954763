package explain

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Schema returns the schema of a CRD version.
func Schema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*apiextensionsv1.JSONSchemaProps, error) {
	val, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil || val == nil || val.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s has no schema for version %q", crd.Name, version)
	}
	return val.OpenAPIV3Schema, nil
}

// AnyKey is the path segment of a map's values: spec.selectors.*.name is
// the name field of every value of the spec.selectors map.
const AnyKey = "*"

// Step is how a schema hangs under its parent.
type Step int

// The three ways down a structural schema.
const (
	Property Step = iota // a field of an object
	Items                // the elements of an array
	Values               // the values of a map (additionalProperties)
)

// String names the step as constraints say where they apply.
func (s Step) String() string {
	switch s {
	case Items:
		return "items"
	case Values:
		return "values"
	}
	return "property"
}

// element is the schema of an array's items or of a map's values.
func element(s *apiextensionsv1.JSONSchemaProps) (*apiextensionsv1.JSONSchemaProps, Step) {
	if s.Items != nil && s.Items.Schema != nil {
		return s.Items.Schema, Items
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		return s.AdditionalProperties.Schema, Values
	}
	return nil, Property
}

// Child is one schema directly under another.
type Child struct {
	Step   Step
	Name   string // the property's name; "" for items and values
	Schema *apiextensionsv1.JSONSchemaProps
	// Required tells whether the parent object requires the property.
	Required bool
}

// Children lists the schemas directly under s: its properties sorted by
// name, then its items or its map values. It is the one walk of a schema
// the verbs share: explain, docs, sample and diff go down through it.
func Children(s *apiextensionsv1.JSONSchemaProps) []Child {
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	required := make(map[string]bool, len(s.Required))
	for _, r := range s.Required {
		required[r] = true
	}
	out := make([]Child, 0, len(names)+1)
	for _, name := range names {
		p := s.Properties[name]
		out = append(out, Child{Step: Property, Name: name, Schema: &p, Required: required[name]})
	}
	if e, step := element(s); e != nil {
		out = append(out, Child{Step: step, Schema: e})
	}
	return out
}

// Field follows path from root as kubectl explain does: through the
// properties of objects, into the items of arrays on the way, and into a
// map's values at a * segment.
func Field(root *apiextensionsv1.JSONSchemaProps, path []string) (*apiextensionsv1.JSONSchemaProps, error) {
	s := root
	for i, name := range path {
		var next *apiextensionsv1.JSONSchemaProps
		for _, n := range Walk(s, nil, false) {
			if n.Path[0] == name {
				next = n.Schema
				break
			}
		}
		if next == nil {
			return nil, fmt.Errorf("field %q does not exist", strings.Join(path[:i+1], "."))
		}
		s = next
	}
	return s, nil
}

// Node is a field with its path.
type Node struct {
	Path   []string
	Schema *apiextensionsv1.JSONSchemaProps
	// Required tells whether the parent object requires this field.
	Required bool
}

// Key tells whether the node stands for the values of a map (its last
// segment is AnyKey) rather than a named field.
func (n Node) Key() bool { return n.Path[len(n.Path)-1] == AnyKey }

// Walk returns s's fields sorted by name, and with all their descendants
// when recursive, depth first. Arrays are gone through to the fields of
// their items, as kubectl explain does; a map whose values have fields
// gets a * node for them. Below a resource's metadata nothing is listed:
// the server checks it as ObjectMeta.
func Walk(s *apiextensionsv1.JSONSchemaProps, path []string, recursive bool) []Node {
	var out []Node
	for _, c := range Children(s) {
		var n Node
		switch {
		case c.Step == Items:
			out = append(out, Walk(c.Schema, path, recursive)...)
			continue
		case c.Step == Values && !hasFields(c.Schema):
			continue
		case c.Step == Values:
			n = Node{Path: appendPath(path, AnyKey), Schema: c.Schema}
		default:
			n = Node{Path: appendPath(path, c.Name), Schema: c.Schema, Required: c.Required}
		}
		out = append(out, n)
		if recursive && !(len(path) == 0 && c.Name == "metadata") {
			out = append(out, Walk(c.Schema, n.Path, true)...)
		}
	}
	return out
}

// hasFields tells whether s, or the elements below it, have properties.
func hasFields(s *apiextensionsv1.JSONSchemaProps) bool {
	for e := s; e != nil; e, _ = element(e) {
		if len(e.Properties) > 0 {
			return true
		}
	}
	return false
}

func appendPath(path []string, name string) []string {
	return append(append(make([]string, 0, len(path)+1), path...), name)
}

// TypeName spells a schema's type as kubectl explain does.
func TypeName(s *apiextensionsv1.JSONSchemaProps) string {
	switch {
	case s.XIntOrString:
		return "IntOrString"
	case s.Type == "array" && s.Items != nil && s.Items.Schema != nil:
		return "[]" + TypeName(s.Items.Schema)
	case s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
		return "map[string]" + TypeName(s.AdditionalProperties.Schema)
	case s.Type == "object":
		return "Object"
	case s.Type == "":
		return "Object"
	}
	return s.Type
}
