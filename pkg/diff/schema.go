package diff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// schemaWalk compares two schemas of one version node by node, following
// properties, array items and map values.
type schemaWalk struct {
	version string
	changes []Change
}

// node compares o and n, found at field (as objects spell it, and as
// lint and validate write it: spec.x, spec.list[*]) and at loc in the new
// CRD document.
func (w *schemaWalk) node(o, n *apiextensionsv1.JSONSchemaProps, field, loc string) {
	add := func(check, format string, args ...any) {
		w.changes = append(w.changes, Change{Version: w.version, Field: fieldOrRoot(field), Location: loc, Check: check, Message: fmt.Sprintf(format, args...)})
	}
	if o.Type != n.Type || o.XIntOrString != n.XIntOrString {
		add("type-changed", "type %s is now %s", typeName(o), typeName(n))
	}
	w.properties(o, n, field, loc)
	w.required(o, n, add)
	enumChanges(o.Enum, n.Enum, add)
	defaultChanges(o.Default, n.Default, add)
	boundChanges(o, n, add)
	switch {
	case o.Pattern != "" && n.Pattern == "":
		add("pattern-removed", "pattern %q removed", o.Pattern)
	case o.Pattern != n.Pattern:
		add("pattern-changed", "pattern %q is now %q", o.Pattern, n.Pattern)
	}
	switch {
	case o.Nullable && !n.Nullable:
		add("nullable-removed", "null is no longer allowed")
	case !o.Nullable && n.Nullable:
		add("nullable-added", "null is allowed")
	}
	oKeep, nKeep := o.XPreserveUnknownFields != nil && *o.XPreserveUnknownFields, n.XPreserveUnknownFields != nil && *n.XPreserveUnknownFields
	switch {
	case oKeep && !nKeep:
		add("preserve-unknown-fields-removed", "unknown fields are no longer kept (x-kubernetes-preserve-unknown-fields)")
	case !oKeep && nKeep:
		add("preserve-unknown-fields-added", "unknown fields are kept (x-kubernetes-preserve-unknown-fields)")
	}
	if str(o.XListType) != str(n.XListType) || !slices.Equal(o.XListMapKeys, n.XListMapKeys) || str(o.XMapType) != str(n.XMapType) {
		add("list-type-changed", "list type %s, map keys %v, map type %s are now %s, %v, %s",
			or(str(o.XListType), "-"), o.XListMapKeys, or(str(o.XMapType), "-"), or(str(n.XListType), "-"), n.XListMapKeys, or(str(n.XMapType), "-"))
	}
	ruleChanges(o.XValidations, n.XValidations, add)
	w.elements(o, n, field, loc)
	if keys := uncovered(o, n); len(keys) > 0 {
		add("unclassified", "%s changed", strings.Join(keys, ", "))
	}
}

// properties compares the fields both schemas have, and reports those only
// one has; elements compares array items and map values both have. Both
// go down through explain.Children, the schema walk the verbs share.
func (w *schemaWalk) properties(o, n *apiextensionsv1.JSONSchemaProps, field, loc string) {
	oc, nc := explain.Children(o), explain.Children(n)
	for _, c := range oc {
		if c.Step != explain.Property {
			continue
		}
		other := child(nc, c)
		at := join(field, c.Name)
		if other == nil {
			w.changes = append(w.changes, Change{Version: w.version, Field: at, Location: loc, Check: "field-removed",
				Message: fmt.Sprintf("field %s (%s) removed", at, typeName(c.Schema))})
			continue
		}
		w.node(c.Schema, other.Schema, at, loc+".properties."+c.Name)
	}
	for _, c := range nc {
		if c.Step == explain.Property && child(oc, c) == nil {
			at := join(field, c.Name)
			w.changes = append(w.changes, Change{Version: w.version, Field: at, Location: loc + ".properties." + c.Name, Check: "field-added",
				Message: fmt.Sprintf("field %s (%s) added", at, typeName(c.Schema))})
		}
	}
}

func (w *schemaWalk) elements(o, n *apiextensionsv1.JSONSchemaProps, field, loc string) {
	nc := explain.Children(n)
	for _, c := range explain.Children(o) {
		if c.Step == explain.Property {
			continue
		}
		if other := child(nc, c); other != nil {
			at := ".additionalProperties"
			if c.Step == explain.Items {
				at = ".items"
			}
			w.node(c.Schema, other.Schema, field+"[*]", loc+at)
		}
	}
}

// child finds c's counterpart in cs: the property of the same name, or the
// items or values.
func child(cs []explain.Child, c explain.Child) *explain.Child {
	for i := range cs {
		if cs[i].Step == c.Step && cs[i].Name == c.Name {
			return &cs[i]
		}
	}
	return nil
}

func (w *schemaWalk) required(o, n *apiextensionsv1.JSONSchemaProps, add func(string, string, ...any)) {
	for _, r := range n.Required {
		if !slices.Contains(o.Required, r) {
			add("required-added", "field %s is now required", r)
		}
	}
	for _, r := range o.Required {
		if !slices.Contains(n.Required, r) {
			add("required-removed", "field %s is no longer required", r)
		}
	}
}

func enumChanges(o, n []apiextensionsv1.JSON, add func(string, string, ...any)) {
	raw := func(vs []apiextensionsv1.JSON) []string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = string(bytes.TrimSpace(v.Raw))
		}
		return out
	}
	ov, nv := raw(o), raw(n)
	switch {
	case len(ov) == 0 && len(nv) > 0:
		add("enum-added", "values are now restricted to %s", strings.Join(nv, ", "))
		return
	case len(ov) > 0 && len(nv) == 0:
		add("enum-removed", "values are no longer restricted to %s", strings.Join(ov, ", "))
		return
	}
	var removed, added []string
	for _, v := range ov {
		if !slices.Contains(nv, v) {
			removed = append(removed, v)
		}
	}
	for _, v := range nv {
		if !slices.Contains(ov, v) {
			added = append(added, v)
		}
	}
	if len(removed) > 0 {
		add("enum-value-removed", "enum values %s removed", strings.Join(removed, ", "))
	}
	if len(added) > 0 {
		add("enum-value-added", "enum values %s added", strings.Join(added, ", "))
	}
}

func defaultChanges(o, n *apiextensionsv1.JSON, add func(string, string, ...any)) {
	switch {
	case o == nil && n != nil:
		add("default-added", "default %s added", n.Raw)
	case o != nil && n == nil:
		add("default-removed", "default %s removed", o.Raw)
	case o != nil && n != nil && !jsonEqual(o.Raw, n.Raw):
		add("default-changed", "default %s is now %s", o.Raw, n.Raw)
	}
}

// boundChanges compares every bound: an upper bound is tighter when it
// appears or goes down (or turns exclusive), a lower bound when it
// appears or goes up.
func boundChanges(o, n *apiextensionsv1.JSONSchemaProps, add func(string, string, ...any)) {
	type bound struct {
		name       string
		upper      bool
		o, n       *float64
		oExc, nExc bool
	}
	f := func(i *int64) *float64 {
		if i == nil {
			return nil
		}
		v := float64(*i)
		return &v
	}
	for _, b := range []bound{
		{"maximum", true, o.Maximum, n.Maximum, o.ExclusiveMaximum, n.ExclusiveMaximum},
		{"minimum", false, o.Minimum, n.Minimum, o.ExclusiveMinimum, n.ExclusiveMinimum},
		{"maxLength", true, f(o.MaxLength), f(n.MaxLength), false, false},
		{"minLength", false, f(o.MinLength), f(n.MinLength), false, false},
		{"maxItems", true, f(o.MaxItems), f(n.MaxItems), false, false},
		{"minItems", false, f(o.MinItems), f(n.MinItems), false, false},
		{"maxProperties", true, f(o.MaxProperties), f(n.MaxProperties), false, false},
		{"minProperties", false, f(o.MinProperties), f(n.MinProperties), false, false},
	} {
		var tighter bool
		switch {
		case b.o == nil && b.n == nil:
			continue
		case b.o == nil:
			tighter = true
		case b.n == nil:
			tighter = false
		case *b.o == *b.n && b.oExc == b.nExc:
			continue
		case *b.o == *b.n:
			tighter = b.nExc
		case b.upper:
			tighter = *b.n < *b.o
		default:
			tighter = *b.n > *b.o
		}
		check := "bound-loosened"
		if tighter {
			check = "bound-tightened"
		}
		switch {
		case b.o == nil:
			add(check, "%s added: %s", b.name, boundText(b.n, b.nExc))
		case b.n == nil:
			add(check, "%s removed (was %s)", b.name, boundText(b.o, b.oExc))
		default:
			add(check, "%s %s is now %s", b.name, boundText(b.o, b.oExc), boundText(b.n, b.nExc))
		}
	}
}

func boundText(v *float64, exclusive bool) string {
	switch {
	case v == nil:
		return "none"
	case exclusive:
		return fmt.Sprintf("%g (exclusive)", *v)
	}
	return fmt.Sprintf("%g", *v)
}

// ruleChanges matches rules by their expression; the rules left on both
// sides are changed ones, in order, and the rest added or removed.
func ruleChanges(o, n apiextensionsv1.ValidationRules, add func(string, string, ...any)) {
	const ratchet = "; objects stored before it keep passing while the fields it checks are unchanged (validation ratcheting), new and changed values must pass"
	var oldLeft, newLeft []apiextensionsv1.ValidationRule
	for _, r := range o {
		if i := slices.IndexFunc(n, func(x apiextensionsv1.ValidationRule) bool { return x.Rule == r.Rule }); i < 0 {
			oldLeft = append(oldLeft, r)
		} else if !equality.Semantic.DeepEqual(r, n[i]) {
			add("validation-rule-changed", "the message, reason or field path of rule %q changed", r.Rule)
		}
	}
	for _, r := range n {
		if !slices.ContainsFunc(o, func(x apiextensionsv1.ValidationRule) bool { return x.Rule == r.Rule }) {
			newLeft = append(newLeft, r)
		}
	}
	for len(oldLeft) > 0 && len(newLeft) > 0 {
		add("validation-rule-changed", "rule changed: %s%s", wordDiff(oldLeft[0].Rule, newLeft[0].Rule), ratchet)
		oldLeft, newLeft = oldLeft[1:], newLeft[1:]
	}
	for _, r := range newLeft {
		add("validation-rule-added", "rule %q added%s", r.Rule, ratchet)
	}
	for _, r := range oldLeft {
		add("validation-rule-removed", "rule %q removed", r.Rule)
	}
}

// uncovered lists the keywords other than the ones the checks above
// compare (and documentation) in which o and n differ.
func uncovered(o, n *apiextensionsv1.JSONSchemaProps) []string {
	strip := func(s *apiextensionsv1.JSONSchemaProps) map[string]json.RawMessage {
		c := s.DeepCopy()
		c.Type, c.XIntOrString, c.Properties, c.Required, c.Enum, c.Default = "", false, nil, nil, nil, nil
		c.Maximum, c.Minimum, c.ExclusiveMaximum, c.ExclusiveMinimum = nil, nil, false, false
		c.MaxLength, c.MinLength, c.MaxItems, c.MinItems, c.MaxProperties, c.MinProperties = nil, nil, nil, nil, nil, nil
		c.Pattern, c.Nullable, c.XPreserveUnknownFields = "", false, nil
		c.XListType, c.XListMapKeys, c.XMapType, c.XValidations = nil, nil, nil, nil
		c.Description, c.Title, c.Example, c.ExternalDocs = "", "", nil, nil
		if c.Items != nil && c.Items.Schema != nil {
			c.Items = nil
		}
		if c.AdditionalProperties != nil && c.AdditionalProperties.Schema != nil {
			c.AdditionalProperties = nil
		}
		data, _ := json.Marshal(c)
		var m map[string]json.RawMessage
		_ = json.Unmarshal(data, &m)
		return m
	}
	om, nm := strip(o), strip(n)
	var keys []string
	for k, v := range om {
		if w, ok := nm[k]; !ok || !jsonEqual(v, w) {
			keys = append(keys, k)
		}
	}
	for k := range nm {
		if _, ok := om[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

func typeName(s *apiextensionsv1.JSONSchemaProps) string {
	switch {
	case s.XIntOrString:
		return "int-or-string"
	case s.Type == "":
		return "any"
	}
	return s.Type
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return equality.Semantic.DeepEqual(x, y)
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

func fieldOrRoot(f string) string {
	if f == "" {
		return "."
	}
	return f
}

// join is the path of the property name in field ("" at the root).
func join(field, name string) string {
	if field == "" {
		return name
	}
	return field + "." + name
}
