// Package schemaproof compiles the OpenAPI schema the API server validates
// a CRD version's objects against into a check that proves, for most valid
// objects, that the server's schema validation (kube-openapi's) would find
// nothing. It never reports an error itself: where it cannot prove an
// object clean, the server's validator runs and every message is the
// server's. What it proves, and what it leaves to the server, follows
// kube-openapi's validators one by one (see check.go).
package schemaproof

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
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
// What most schemas of a CRD have is in node; the rest is in constraints,
// shared (none) by the nodes without any: a CRD's schema has thousands
// of nodes, and the proof of every version a run meets stays in memory.
type node struct {
	unproven bool
	// types: the kinds the schema's type admits; typed is false when the
	// schema names no type (kube-openapi then checks no type).
	types    uint8
	typed    bool
	nullable bool
	closed   bool       // additionalProperties: false
	props    []property // by name
	items    *node
	// additional is additionalProperties' schema; nil: any.
	additional *node
	// patternProps: the schema has patternProperties (not proven), which
	// change what additionalProperties applies to.
	patternProps bool
	*constraints
}

type property struct {
	name string
	node *node
}

// constraints are a schema's keywords beyond types and structure.
type constraints struct {
	format string
	// formatChecked: the format is one the server's registry checks on
	// strings (kube-openapi ignores the others).
	formatChecked bool
	hasEnum       bool
	enum          map[string]bool // the enum's string values
	pattern       *pattern
	minLength     *int64
	maxLength     *int64
	minimum       *float64
	maximum       *float64
	exclMin       bool
	exclMax       bool
	// numberType and numberFormat are the type and format the number
	// validator checks numbers and bounds against ("" when it checks
	// none); boundsFit: every bound fits them (else the server finds an
	// error in every number).
	numberType, numberFormat string
	boundsFit                bool
	multipleOf               *float64
	minItems                 *int64
	maxItems                 *int64
	minProps                 *int64
	maxProps                 *int64
	required                 []string
	allOf                    []*node
	anyOf                    []*node
	oneOf                    []*node
	not                      *node
}

// none are the constraints of a node without any.
var none = constraints{boundsFit: true}

// pattern is a regular expression compiled when first matched: most
// patterns of a CRD never meet a value in a run.
type pattern struct {
	src  string
	once sync.Once
	re   *regexp.Regexp // nil when src does not compile
}

func (p *pattern) get() *regexp.Regexp {
	p.once.Do(func() { p.re, _ = regexp.Compile(p.src) })
	return p.re
}

// compiler compiles the schemas of one CRD version, each pattern once.
type compiler struct {
	patterns map[string]*pattern
}

// compile compiles the schema of a CRD version.
func compile(s *spec.Schema) *node {
	c := &compiler{patterns: map[string]*pattern{}}
	root := c.node(s)
	// A property at the root has its name for its path (deeper ones
	// have a parent's name and a dot before theirs), so its errors start
	// with its name; an error that starts with "IMPORTANT!" is kept from
	// a failing oneOf schema when another passes (schema_props.go).
	// Nothing is proven of a schema with such a name.
	if importantAtRoot(s) {
		root.unproven = true
	}
	return root
}

// importantAtRoot tells whether the root schema s, or a junctor's schema
// at the root, has a property whose name starts with "IMPORTANT!".
func importantAtRoot(s *spec.Schema) bool {
	for name := range s.Properties {
		if strings.HasPrefix(name, "IMPORTANT!") {
			return true
		}
	}
	for _, list := range [][]spec.Schema{s.AllOf, s.AnyOf, s.OneOf} {
		for i := range list {
			if importantAtRoot(&list[i]) {
				return true
			}
		}
	}
	return s.Not != nil && importantAtRoot(s.Not)
}

func (c *compiler) node(s *spec.Schema) *node {
	n := &node{nullable: s.Nullable, constraints: &none, patternProps: len(s.PatternProperties) > 0}
	n.unproven = len(s.Dependencies) > 0 || n.patternProps || s.UniqueItems ||
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
	if len(s.Properties) > 0 {
		n.props = make([]property, 0, len(s.Properties))
		for name, p := range s.Properties {
			n.props = append(n.props, property{name, c.node(&p)})
		}
		slices.SortFunc(n.props, func(a, b property) int { return strings.Compare(a.name, b.name) })
	}
	if ap := s.AdditionalProperties; ap != nil {
		switch {
		case ap.Schema != nil:
			n.additional = c.node(ap.Schema)
		case !ap.Allows:
			n.closed = true
		}
	}
	if s.Items != nil && s.Items.Schema != nil {
		n.items = c.node(s.Items.Schema)
	}
	if k := c.constraints(s); !reflect.DeepEqual(k, none) {
		n.constraints = &k
	}
	return n
}

// constraints compiles the keywords of s beyond types and structure.
func (c *compiler) constraints(s *spec.Schema) constraints {
	k := constraints{format: s.Format, required: s.Required, multipleOf: s.MultipleOf,
		minLength: s.MinLength, maxLength: s.MaxLength,
		minimum: s.Minimum, maximum: s.Maximum, exclMin: s.ExclusiveMinimum, exclMax: s.ExclusiveMaximum,
		minItems: s.MinItems, maxItems: s.MaxItems, minProps: s.MinProperties, maxProps: s.MaxProperties}
	k.formatChecked = s.Format != "" && strfmt.Default.ContainsName(s.Format)
	if len(s.Enum) > 0 {
		k.hasEnum = true
		k.enum = make(map[string]bool, len(s.Enum))
		for _, v := range s.Enum {
			if str, ok := v.(string); ok {
				k.enum[str] = true
			}
		}
	}
	if s.Pattern != "" {
		p := c.patterns[s.Pattern]
		if p == nil {
			p = &pattern{src: s.Pattern}
			c.patterns[s.Pattern] = p
		}
		k.pattern = p
	}
	k.boundsFit = true
	if s.MultipleOf != nil || s.Maximum != nil || s.Minimum != nil || s.Format == "int32" || s.Format == "float" {
		// Else the number validator's range check of a value adds
		// nothing to the type check: an integer the type admits is one
		// int64 holds (int64 and the default format), and float's range
		// is the only one narrower than a float64's. Leaving them out
		// keeps the plain node's constraints shared.
		k.numberType, k.numberFormat = numberTypeFormat(s)
	}
	for _, b := range []*float64{s.MultipleOf, s.Maximum, s.Minimum} {
		// The number validator checks each bound as it checks a value,
		// with the same function.
		if b != nil && validate.IsValueValidAgainstRange(*b, k.numberType, k.numberFormat, "", "") != nil {
			k.boundsFit = false
		}
	}
	k.allOf = c.all(s.AllOf)
	k.anyOf = c.all(s.AnyOf)
	k.oneOf = c.all(s.OneOf)
	if s.Not != nil {
		k.not = c.node(s.Not)
	}
	return k
}

func (c *compiler) all(schemas []spec.Schema) []*node {
	var nodes []*node
	for i := range schemas {
		nodes = append(nodes, c.node(&schemas[i]))
	}
	return nodes
}

// numberTypeFormat are the type and format kube-openapi's number
// validator is built with (schema.go, numberValidator): those of a
// schema with exactly one type, integer (formats int32 and int64) or
// number (float and double); else none.
func numberTypeFormat(s *spec.Schema) (string, string) {
	if len(s.Type) != 1 {
		return "", ""
	}
	switch t := s.Type[0]; t {
	case "integer":
		if s.Format == "int32" || s.Format == "int64" {
			return t, s.Format
		}
		return t, ""
	case "number":
		if s.Format == "float" || s.Format == "double" {
			return t, s.Format
		}
		return t, ""
	}
	return "", ""
}

// property is the schema of the property named name (nil: none).
func (n *node) property(name string) *node {
	i, ok := slices.BinarySearchFunc(n.props, name, func(p property, name string) int { return strings.Compare(p.name, name) })
	if !ok {
		return nil
	}
	return n.props[i].node
}
