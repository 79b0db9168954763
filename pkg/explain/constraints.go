// Package explain finds fields in CRD schemas by path and describes what
// kubectl explain leaves out: each field's constraints, and reference pages.
package explain

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	celcommon "github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	celparser "github.com/google/cel-go/parser"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Kind names a constraint as the schema spells its keyword (the
// x-kubernetes- prefix left out), so that every renderer shows the name a
// CRD author writes.
type Kind string

// The kinds of constraint a structural schema can state.
const (
	Default               Kind = "default"
	Format                Kind = "format"
	Minimum               Kind = "minimum"
	Maximum               Kind = "maximum"
	MultipleOf            Kind = "multipleOf"
	MinLength             Kind = "minLength"
	MaxLength             Kind = "maxLength"
	MinItems              Kind = "minItems"
	MaxItems              Kind = "maxItems"
	MinProperties         Kind = "minProperties"
	MaxProperties         Kind = "maxProperties"
	UniqueItems           Kind = "uniqueItems"
	Pattern               Kind = "pattern"
	Enum                  Kind = "enum"
	Nullable              Kind = "nullable"
	IntOrString           Kind = "int-or-string"
	PreserveUnknownFields Kind = "preserve-unknown-fields"
	EmbeddedResource      Kind = "embedded-resource"
	ListType              Kind = "list-type"
	ListMapKeys           Kind = "list-map-keys"
	MapType               Kind = "map-type"
	AllOf                 Kind = "allOf"
	AnyOf                 Kind = "anyOf"
	OneOf                 Kind = "oneOf"
	Not                   Kind = "not"
	Required              Kind = "required"
	Rule                  Kind = "rule"
)

// Constraint is one thing a schema node asks of a value.
type Constraint struct {
	Kind Kind
	// Value is the constraint's value as the schema has it: a number, a
	// name, a pattern, JSON for defaults, enum values and combinators.
	Value string
	// Exclusive marks a minimum or maximum the value may not equal.
	Exclusive bool
	// Of is where the constraint applies below the field: "" for the
	// field itself, "items" for an array's elements, "values" for a map's
	// values ("items.items" and so on further down).
	Of string
	// Validation is the CEL rule of a Rule constraint, Transition whether
	// it compares with the old object (it refers to oldSelf), which the
	// server checks only on updates.
	Validation *apiextensionsv1.ValidationRule
	Transition bool
}

// Constraints lists what a schema node asks of a value: default, format,
// bounds, lengths, counts, pattern, enum, nullable, int-or-string,
// preserved unknown fields, embedded resource, list and map types,
// combinators, required fields and CEL rules; then those of its array
// items and map values, which have no field of their own.
func Constraints(s *apiextensionsv1.JSONSchemaProps) []Constraint {
	out := own(s, "")
	for of, e := "", s; ; {
		next, step := element(e)
		if next == nil || (step == Values && hasFields(next)) {
			// A map whose values have fields has a node of its own
			// for them (Walk's * node), which lists their constraints.
			return out
		}
		of = strings.TrimPrefix(of+"."+step.String(), ".")
		out = append(out, own(next, of)...)
		e = next
	}
}

// own lists the constraints s states itself.
func own(s *apiextensionsv1.JSONSchemaProps, of string) []Constraint {
	var out []Constraint
	add := func(k Kind, v string) { out = append(out, Constraint{Kind: k, Value: v, Of: of}) }
	if s.Default != nil {
		add(Default, string(s.Default.Raw))
	}
	if s.Format != "" {
		add(Format, s.Format)
	}
	if s.Minimum != nil {
		add(Minimum, number(*s.Minimum))
		out[len(out)-1].Exclusive = s.ExclusiveMinimum
	}
	if s.Maximum != nil {
		add(Maximum, number(*s.Maximum))
		out[len(out)-1].Exclusive = s.ExclusiveMaximum
	}
	if s.MultipleOf != nil {
		add(MultipleOf, number(*s.MultipleOf))
	}
	for _, b := range []struct {
		kind Kind
		v    *int64
	}{{MinLength, s.MinLength}, {MaxLength, s.MaxLength}, {MinItems, s.MinItems}, {MaxItems, s.MaxItems}, {MinProperties, s.MinProperties}, {MaxProperties, s.MaxProperties}} {
		if b.v != nil {
			add(b.kind, strconv.FormatInt(*b.v, 10))
		}
	}
	if s.UniqueItems {
		add(UniqueItems, "true")
	}
	if s.Pattern != "" {
		add(Pattern, s.Pattern)
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = string(e.Raw)
		}
		add(Enum, strings.Join(vals, ", "))
	}
	if s.Nullable {
		add(Nullable, "true")
	}
	if s.XIntOrString {
		add(IntOrString, "true")
	}
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		add(PreserveUnknownFields, "true")
	}
	if s.XEmbeddedResource {
		add(EmbeddedResource, "true")
	}
	if s.XListType != nil {
		add(ListType, *s.XListType)
	}
	if len(s.XListMapKeys) > 0 {
		add(ListMapKeys, strings.Join(s.XListMapKeys, ", "))
	}
	if s.XMapType != nil {
		add(MapType, *s.XMapType)
	}
	for _, c := range []struct {
		kind Kind
		v    []apiextensionsv1.JSONSchemaProps
	}{{AllOf, s.AllOf}, {AnyOf, s.AnyOf}, {OneOf, s.OneOf}} {
		if len(c.v) > 0 {
			add(c.kind, compact(c.v))
		}
	}
	if s.Not != nil {
		add(Not, compact(s.Not))
	}
	if len(s.Required) > 0 {
		req := append([]string(nil), s.Required...)
		sort.Strings(req)
		add(Required, strings.Join(req, ", "))
	}
	for i := range s.XValidations {
		r := &s.XValidations[i]
		out = append(out, Constraint{Kind: Rule, Value: r.Rule, Of: of, Validation: r, Transition: refersToOldSelf(r.Rule)})
	}
	return out
}

// refersToOldSelf tells whether a CEL rule names oldSelf, which makes it a
// transition rule for the server (it looks the variable up in the checked
// expression's references; a parse finds the same identifier without
// building the rule's type environment).
func refersToOldSelf(rule string) bool {
	p, err := celparser.NewParser()
	if err != nil {
		return strings.Contains(rule, "oldSelf")
	}
	ast, errs := p.Parse(celcommon.NewTextSource(rule))
	if errs != nil && len(errs.GetErrors()) > 0 {
		return strings.Contains(rule, "oldSelf")
	}
	found := false
	celast.PreOrderVisit(ast.Expr(), celast.NewExprVisitor(func(e celast.Expr) {
		found = found || (e.Kind() == celast.IdentKind && e.AsIdent() == "oldSelf")
	}))
	return found
}

// Lines is the constraint as explain -o detailed prints it: "name: value",
// and a rule's message, messageExpression, reason, fieldPath and
// optionalOldSelf on indented lines after it.
func (c Constraint) Lines() []string {
	name := string(c.Kind)
	if c.Of != "" {
		name = c.Of + " " + name
	}
	line := name + ": " + c.Value
	if c.Exclusive {
		line += " (exclusive)"
	}
	out := []string{line}
	if c.Transition {
		out = append(out, "  transition rule: checked on updates, against the old value")
	}
	for _, d := range c.Details() {
		out = append(out, "  "+d.Name+": "+d.Value)
	}
	return out
}

// Detail is one property of a CEL rule besides the rule itself.
type Detail struct{ Name, Value string }

// Details lists a rule's message, messageExpression, reason, fieldPath and
// optionalOldSelf, those it has.
func (c Constraint) Details() []Detail {
	r := c.Validation
	if r == nil {
		return nil
	}
	var out []Detail
	if r.Message != "" {
		out = append(out, Detail{"message", r.Message})
	}
	if r.MessageExpression != "" {
		out = append(out, Detail{"messageExpression", r.MessageExpression})
	}
	if r.Reason != nil {
		out = append(out, Detail{"reason", string(*r.Reason)})
	}
	if r.FieldPath != "" {
		out = append(out, Detail{"fieldPath", r.FieldPath})
	}
	if r.OptionalOldSelf != nil && *r.OptionalOldSelf {
		out = append(out, Detail{"optionalOldSelf", "true"})
	}
	return out
}

// Label is the constraint's name with where it applies ("items pattern").
func (c Constraint) Label() string {
	if c.Of == "" {
		return string(c.Kind)
	}
	return c.Of + " " + string(c.Kind)
}

// number spells a bound as the schema would (no exponent for integers).
func number(f float64) string {
	return fmt.Sprint(f)
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
