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

// Field follows path from root as kubectl explain does: through the
// properties of objects, and into the items of arrays on the way.
func Field(root *apiextensionsv1.JSONSchemaProps, path []string) (*apiextensionsv1.JSONSchemaProps, error) {
	s := root
	for i, name := range path {
		s = elem(s)
		p, ok := s.Properties[name]
		if !ok {
			return nil, fmt.Errorf("field %q does not exist", strings.Join(path[:i+1], "."))
		}
		s = &p
	}
	return s, nil
}

// elem is the schema of an array's items, or s itself.
func elem(s *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	if s.Type == "array" && s.Items != nil && s.Items.Schema != nil {
		return s.Items.Schema
	}
	return s
}

// Node is a field with its path.
type Node struct {
	Path   []string
	Schema *apiextensionsv1.JSONSchemaProps
	// Required tells whether the parent object requires this field.
	Required bool
}

// Walk returns s's fields (through array items), sorted by name, and with
// all their descendants when recursive, depth first. Below a resource's
// metadata nothing is listed: the server checks it as ObjectMeta.
func Walk(s *apiextensionsv1.JSONSchemaProps, path []string, recursive bool) []Node {
	e := elem(s)
	names := make([]string, 0, len(e.Properties))
	for name := range e.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	required := map[string]bool{}
	for _, r := range e.Required {
		required[r] = true
	}
	var out []Node
	for _, name := range names {
		child := e.Properties[name]
		p := append(append([]string(nil), path...), name)
		out = append(out, Node{Path: p, Schema: &child, Required: required[name]})
		if recursive && !(len(path) == 0 && name == "metadata") {
			out = append(out, Walk(&child, p, true)...)
		}
	}
	return out
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
