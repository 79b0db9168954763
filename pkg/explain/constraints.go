// Package explain finds fields in CRD schemas by path and renders what
// kubectl explain leaves out: each field's constraints, and reference pages.
package explain

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Constraints lists what a schema node asks of a value: default, format,
// bounds, lengths, counts, pattern, enum, nullable, int-or-string,
// preserved unknown fields, embedded resource, list and map types,
// combinators, required fields and CEL rules, one line each (a CEL rule's
// details on indented lines after it).
func Constraints(s *apiextensionsv1.JSONSchemaProps) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if s.Default != nil {
		add("default: %s", s.Default.Raw)
	}
	if s.Format != "" {
		add("format: %s", s.Format)
	}
	if s.Minimum != nil {
		add("minimum: %v%s", *s.Minimum, exclusive(s.ExclusiveMinimum))
	}
	if s.Maximum != nil {
		add("maximum: %v%s", *s.Maximum, exclusive(s.ExclusiveMaximum))
	}
	if s.MultipleOf != nil {
		add("multipleOf: %v", *s.MultipleOf)
	}
	for _, b := range []struct {
		name string
		v    *int64
	}{{"minLength", s.MinLength}, {"maxLength", s.MaxLength}, {"minItems", s.MinItems}, {"maxItems", s.MaxItems}, {"minProperties", s.MinProperties}, {"maxProperties", s.MaxProperties}} {
		if b.v != nil {
			add("%s: %d", b.name, *b.v)
		}
	}
	if s.UniqueItems {
		add("uniqueItems: true")
	}
	if s.Pattern != "" {
		add("pattern: %s", s.Pattern)
	}
	if len(s.Enum) > 0 {
		vals := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			vals[i] = string(e.Raw)
		}
		add("enum: %s", strings.Join(vals, ", "))
	}
	if s.Nullable {
		add("nullable: true")
	}
	if s.XIntOrString {
		add("int-or-string: true")
	}
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields {
		add("preserve-unknown-fields: true")
	}
	if s.XEmbeddedResource {
		add("embedded-resource: true")
	}
	if s.XListType != nil {
		add("list-type: %s", *s.XListType)
	}
	if len(s.XListMapKeys) > 0 {
		add("list-map-keys: %s", strings.Join(s.XListMapKeys, ", "))
	}
	if s.XMapType != nil {
		add("map-type: %s", *s.XMapType)
	}
	for _, c := range []struct {
		name string
		v    []apiextensionsv1.JSONSchemaProps
	}{{"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		if len(c.v) > 0 {
			add("%s: %s", c.name, compact(c.v))
		}
	}
	if s.Not != nil {
		add("not: %s", compact(s.Not))
	}
	if len(s.Required) > 0 {
		req := append([]string(nil), s.Required...)
		sort.Strings(req)
		add("required: %s", strings.Join(req, ", "))
	}
	for _, r := range s.XValidations {
		add("rule: %s", r.Rule)
		if r.Message != "" {
			add("  message: %s", r.Message)
		}
		if r.MessageExpression != "" {
			add("  messageExpression: %s", r.MessageExpression)
		}
		if r.Reason != nil {
			add("  reason: %s", *r.Reason)
		}
		if r.FieldPath != "" {
			add("  fieldPath: %s", r.FieldPath)
		}
		if r.OptionalOldSelf != nil && *r.OptionalOldSelf {
			add("  optionalOldSelf: true")
		}
	}
	return out
}

func exclusive(b bool) string {
	if b {
		return " (exclusive)"
	}
	return ""
}

func compact(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
