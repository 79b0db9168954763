package diff

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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
