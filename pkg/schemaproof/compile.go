// Package schemaproof compiles the OpenAPI schema the API server validates
// a CRD version's objects against into a check that proves, for most valid
// objects, that the server's schema validation (kube-openapi's) would find
// nothing. It never reports an error itself: where it cannot prove an
// object clean, the server's validator runs and every message is the
// server's. What it proves, and what it leaves to the server, follows
// kube-openapi's validators one by one (see check.go).
package schemaproof

import (
	"regexp"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// Kinds of JSON value, as a set.
const (
	kindString uint8 = 1 << iota
	kindInteger
	kindNumber
	kindBoolean
	kindObject
	kindArray
	kindNull
)

// kindOfType is the kind an OpenAPI type names (0: none known).
func kindOfType(t string) uint8 {
	switch t {
	case "string":
		return kindString
	case "integer":
		return kindInteger
	case "number":
		return kindNumber
	case "boolean":
		return kindBoolean
	case "object":
		return kindObject
	case "array":
		return kindArray
	case "null":
		return kindNull
	}
	return 0
}

// node is one schema, compiled. unproven is set when the schema uses a
// keyword this package does not prove (patternProperties, uniqueItems,
// dependencies, a list of item schemas, ...): no value is proven clean
// against it, though one may still be proven to fail it (see fails).
type node struct {
	unproven bool
	// types: the kinds the schema's type admits; typed is false when the
	// schema names no type (kube-openapi then checks no type).
	types    uint8
	typed    bool
	nullable bool
	format   string
	// formatChecked: the format is one the server's registry checks on
	// strings (kube-openapi ignores the others).
	formatChecked bool

	enum    map[string]bool // the enum's string values
	hasEnum bool

	pattern            *regexp.Regexp
	minLength          *int64
	maxLength          *int64
	minimum, maximum   *float64
	exclMin, exclMax   bool
	int32Range         bool // an integer of format int32
	float32Range       bool // a number of format float
	minItems, maxItems *int64
	minProps, maxProps *int64
	required           []string

	properties map[string]*node
	additional *node // additionalProperties' schema; nil: any
	closed     bool  // additionalProperties: false
	items      *node
	allOf      []*node
	anyOf      []*node
	oneOf      []*node
	not        *node
	multipleOf *float64
}

// compile compiles s (never nil).
func compile(s *spec.Schema) *node {
	n := &node{nullable: s.Nullable, format: s.Format, multipleOf: s.MultipleOf}
	n.unproven = len(s.Dependencies) > 0 || len(s.PatternProperties) > 0 || s.UniqueItems ||
		s.AdditionalItems != nil || s.Ref.String() != "" ||
		(s.Items != nil && (s.Items.Schema == nil || len(s.Items.Schemas) > 0))
	for _, t := range s.Type {
		k := kindOfType(t)
		if k == 0 {
			n.unproven = true
		}
		n.types |= k
		n.typed = true
	}
	n.formatChecked = s.Format != "" && strfmt.Default.ContainsName(s.Format)
	if len(s.Enum) > 0 {
		n.hasEnum = true
		n.enum = make(map[string]bool, len(s.Enum))
		for _, v := range s.Enum {
			if str, ok := v.(string); ok {
				n.enum[str] = true
			}
		}
	}
	if s.Pattern != "" {
		if re, err := regexp.Compile(s.Pattern); err == nil {
			n.pattern = re
		} else {
			n.unproven = true
		}
	}
	n.minLength, n.maxLength = s.MinLength, s.MaxLength
	n.minimum, n.maximum, n.exclMin, n.exclMax = s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum
	// kube-openapi checks the range of a format only when the schema has
	// exactly one type (numberValidator).
	if len(s.Type) == 1 {
		n.int32Range = s.Type[0] == "integer" && s.Format == "int32"
		n.float32Range = s.Type[0] == "number" && s.Format == "float"
		if (s.Type[0] == "integer" && (s.Format == "uint32" || s.Format == "uint64")) ||
			(s.Type[0] == "number" && (s.Format == "float32" || s.Format == "float64")) {
			n.unproven = true
		}
	}
	n.minItems, n.maxItems = s.MinItems, s.MaxItems
	n.minProps, n.maxProps = s.MinProperties, s.MaxProperties
	n.required = s.Required
	if len(s.Properties) > 0 {
		n.properties = make(map[string]*node, len(s.Properties))
		for name, p := range s.Properties {
			n.properties[name] = compile(&p)
		}
	}
	if ap := s.AdditionalProperties; ap != nil {
		switch {
		case ap.Schema != nil:
			n.additional = compile(ap.Schema)
		case !ap.Allows:
			n.closed = true
		}
	}
	if s.Items != nil && s.Items.Schema != nil {
		n.items = compile(s.Items.Schema)
	}
	n.allOf = compileAll(s.AllOf)
	n.anyOf = compileAll(s.AnyOf)
	n.oneOf = compileAll(s.OneOf)
	if s.Not != nil {
		n.not = compile(s.Not)
	}
	return n
}

func compileAll(schemas []spec.Schema) []*node {
	var nodes []*node
	for i := range schemas {
		nodes = append(nodes, compile(&schemas[i]))
	}
	return nodes
}

// within reports whether f is inside the bounds, compared as floats.
func within(f float64, min, max *float64, exclMin, exclMax bool) bool {
	if max != nil && (f > *max || (exclMax && f >= *max)) {
		return false
	}
	if min != nil && (f < *min || (exclMin && f <= *min)) {
		return false
	}
	return true
}
