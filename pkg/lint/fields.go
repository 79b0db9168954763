package lint

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// field runs the checks of one schema node.
func (l *crdLint) field(n *node) {
	s := n.s
	if n.parent == nil || n.serverOwned() {
		return
	}
	switch s.Type {
	case "string":
		l.bounded(n, s.MaxLength, "maxlength", "a string without maxLength", "set maxLength (controller-gen: +kubebuilder:validation:MaxLength=N; for a list's items +kubebuilder:validation:items:MaxLength=N): the longest value the field needs")
		// A time (metav1.Time, format date-time or date) is never empty;
		// any other string may be, []byte's (format byte) too.
		if len(s.Enum) == 0 && s.Format != "date-time" && s.Format != "date" && s.MinLength == nil {
			l.add(n, "minlength", "a string without minLength: the empty string is valid", "set minLength: 1 (controller-gen: +kubebuilder:validation:MinLength=1), or say in the description what empty means")
		}
		if s.Format == "duration" {
			l.add(n, "nodurations", "a duration: its text form (1h2m) has no one canonical form", "use an integer of a named unit (fooSeconds, int32 in Go) instead")
		}
	case "array":
		l.bounded(n, s.MaxItems, "maxlength", "a list without maxItems", "set maxItems (controller-gen: +kubebuilder:validation:MaxItems=N): the most items the field needs")
		if s.MinItems == nil {
			l.add(n, "minlength", "a list without minItems: an empty list is valid", "set minItems: 1 (controller-gen: +kubebuilder:validation:MinItems=1), or say in the description what an empty list means")
		}
		if s.XListType == nil {
			l.add(n, "ssatags", "a list without x-kubernetes-list-type: server-side apply replaces it whole (atomic)", "set x-kubernetes-list-type: map (with x-kubernetes-list-map-keys) for objects, set for unique scalars, or atomic when replacing it whole is meant (controller-gen: +listType=map with +listMapKey=name, +listType=set, +listType=atomic)")
		}
		if items := itemSchema(s); !l.ignored["arrayofstruct"] && items != nil && items.Type == "object" && len(items.Properties) > 0 && len(items.Required) == 0 && l.empty.accepts(items) {
			l.add(n, "arrayofstruct", "a list of objects none of whose fields is required: an empty item {} is valid, and items cannot be told apart", "make at least one field of the items required (controller-gen: +required on it)")
		}
	case "object":
		switch {
		case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
			l.bounded(n, s.MaxProperties, "maxlength", "a map without maxProperties", "set maxProperties (controller-gen: +kubebuilder:validation:MaxProperties=N): the most entries the field needs")
			if s.MinProperties == nil {
				l.add(n, "minlength", "a map without minProperties: an empty map is valid", "set minProperties: 1 (controller-gen: +kubebuilder:validation:MinProperties=1), or say in the description what an empty map means")
			}
			if v := s.AdditionalProperties.Schema; v.Type != "string" {
				l.add(n, "nomaps", fmt.Sprintf("a map of %s values: maps are hard to extend and to merge", typeName(v)), "use a list of objects keyed by a name (x-kubernetes-list-type: map; controller-gen: +listType=map, +listMapKey=name)")
			}
		case !l.ignored["minlength"] && len(s.Properties) > 0 && len(s.Required) == 0 && s.MinProperties == nil && !s.XEmbeddedResource && l.empty.accepts(s):
			l.add(n, "minlength", "an object none of whose fields is required, without minProperties: the empty object {} is valid", "make a field required (controller-gen: +required), or set minProperties: 1 (+kubebuilder:validation:MinProperties=1)")
		}
	case "number":
		l.add(n, "nofloats", "a floating-point number: its value is not the same across languages and encodings", "use an integer (of a named unit, or scaled; int32 or int64 in Go), or a resource.Quantity")
	case "integer":
		if s.Format != "int32" && s.Format != "int64" {
			what := "an integer without a format"
			if s.Format != "" {
				what = fmt.Sprintf("an integer of format %s", s.Format)
			}
			l.add(n, "integers", what+": only int32 and int64 are the same size in every client", "set format: int32, or int64 where int32 is not enough (in Go: the int32 or int64 type)")
		}
	case "boolean":
		l.add(n, "nobools", "a boolean: a third state later cannot be added", "use a string enum (e.g. Enabled, Disabled; controller-gen: +kubebuilder:validation:Enum=Enabled;Disabled)")
	}
	if s.Nullable {
		l.add(n, "nonullable", "a nullable field: null and absent then mean two things", "drop nullable: true (controller-gen: +nullable) and let absent mean unset")
	}
	if n.required && s.Default != nil {
		l.add(n, "defaultorrequired", "a required field with a default: the server sets the default before it checks required, so the field may be left out and required never fails", "drop required (controller-gen: +required), the default keeping the field set, or the default (+kubebuilder:default) where the user must choose")
	}
	l.names(n)
	l.enum(n)
	l.listMapKeys(n)
	if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields && (n.field == "spec" || n.field == "status") {
		l.add(n, "preserve-unknown-fields", "x-kubernetes-preserve-unknown-fields on the whole "+n.field+": nothing in it is pruned or validated", "describe its fields; keep unknown fields (controller-gen: +kubebuilder:pruning:PreserveUnknownFields) only where free-form data is meant")
	}
	if n.name == "conditions" {
		l.conditions(n)
	}
}

// bounded reports an unbounded string, list or map.
func (l *crdLint) bounded(n *node, bound *int64, check, msg, fix string) {
	if bound != nil || len(n.s.Enum) > 0 || n.s.Format == "date-time" || n.s.Format == "date" || n.s.XIntOrString {
		return
	}
	msg += ": the server accepts any size"
	if _, ok := l.bounds[n.field]; ok {
		msg += ", and a CEL rule's cost grows with it"
	}
	l.add(n, check, msg, fix)
}

// names are the checks of a property's name.
func (l *crdLint) names(n *node) {
	lower := strings.ToLower(n.name)
	switch {
	case n.name == "":
	case strings.Contains(lower, "phase"):
		l.add(n, "nophase", "a phase: a state machine in one field; clients cannot tell what a new phase means", "use conditions (status.conditions, []metav1.Condition) instead")
	case strings.Contains(lower, "timestamp"):
		i := strings.Index(lower, "timestamp")
		l.add(n, "notimestamp", "a name with Timestamp: the conventions name times ...Time", "rename it "+n.name[:i]+"Time"+n.name[i+len("timestamp"):])
	case strings.HasSuffix(n.name, "Reference") || strings.HasSuffix(n.name, "References"):
		l.add(n, "noreferences", "a name ending Reference: the conventions write Ref", "rename it "+strings.Replace(n.name, "Reference", "Ref", 1))
	}
}

// enum reports enum values the field itself refuses.
func (l *crdLint) enum(n *node) {
	s := n.s
	var pattern *regexp.Regexp
	if s.Pattern != "" {
		pattern, _ = regexp.Compile(s.Pattern)
	}
	for _, raw := range s.Enum {
		var v any
		if err := json.Unmarshal(raw.Raw, &v); err != nil {
			continue
		}
		why := ""
		switch v := v.(type) {
		case string:
			switch n := int64(utf8.RuneCountInString(v)); {
			case pattern != nil && !pattern.MatchString(v):
				why = "does not match the pattern " + s.Pattern
			case s.MaxLength != nil && n > *s.MaxLength:
				why = fmt.Sprintf("is longer than maxLength %d", *s.MaxLength)
			case s.MinLength != nil && n < *s.MinLength:
				why = fmt.Sprintf("is shorter than minLength %d", *s.MinLength)
			}
		case float64:
			switch {
			case s.Maximum != nil && (v > *s.Maximum || s.ExclusiveMaximum && v == *s.Maximum):
				why = fmt.Sprintf("is above the maximum %v", *s.Maximum)
			case s.Minimum != nil && (v < *s.Minimum || s.ExclusiveMinimum && v == *s.Minimum):
				why = fmt.Sprintf("is below the minimum %v", *s.Minimum)
			}
		}
		if why != "" {
			l.add(n, "enum-value", fmt.Sprintf("the enum value %s %s: the server refuses every object that uses it", string(raw.Raw), why), "change the value (controller-gen: +kubebuilder:validation:Enum), or the bound")
		}
	}
}

// conditions checks a field named conditions: a list of metav1.Condition
// (kube-api-linter requires every Conditions field to be one), an
// optional list-map keyed by type.
func (l *crdLint) conditions(n *node) {
	s := n.s
	if !metav1Conditions(s) {
		l.add(n, "conditions", "conditions that are not a list of metav1.Condition: clients and tools read conditions by its fields and their meaning", "use []metav1.Condition (type, status, observedGeneration, lastTransitionTime, reason, message)")
		return
	}
	keyed := s.XListType != nil && *s.XListType == "map" && len(s.XListMapKeys) == 1 && s.XListMapKeys[0] == "type"
	if !keyed {
		l.add(n, "conditions", n.field+" is not a list-map keyed by type: server-side apply cannot merge one condition", "x-kubernetes-list-type: map and x-kubernetes-list-map-keys: [type] (controller-gen: +listType=map, +listMapKey=type)")
	}
	if n.required {
		l.add(n, "conditions", "required conditions: controllers write them after the object exists", "make "+n.name+" optional (controller-gen: +optional)")
	}
}

// metav1Conditions tells whether a schema is a list of metav1.Condition
// as generated: items with its six fields, five of them required, and
// status one of True, False, Unknown.
func metav1Conditions(s *apiextensionsv1.JSONSchemaProps) bool {
	items := itemSchema(s)
	if s.Type != "array" || items == nil || len(items.Properties) != 6 {
		return false
	}
	for _, name := range []string{"type", "status", "observedGeneration", "lastTransitionTime", "reason", "message"} {
		if _, ok := items.Properties[name]; !ok {
			return false
		}
	}
	for _, name := range []string{"type", "status", "lastTransitionTime", "reason", "message"} {
		if !slices.Contains(items.Required, name) {
			return false
		}
	}
	return len(items.Properties["status"].Enum) == 3
}

func itemSchema(s *apiextensionsv1.JSONSchemaProps) *apiextensionsv1.JSONSchemaProps {
	if s.Items == nil {
		return nil
	}
	return s.Items.Schema
}

func typeName(s *apiextensionsv1.JSONSchemaProps) string {
	if s.Type == "" {
		return "untyped"
	}
	return s.Type
}
