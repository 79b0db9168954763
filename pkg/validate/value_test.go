package validate

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

// TestAccepts: {} against object schemas, as the server answers: a
// default fills a required field, a rule or an anyOf may refuse it.
func TestAccepts(t *testing.T) {
	for _, c := range []struct {
		name, schema string
		want         bool
	}{
		{"optional fields", `{type: object, properties: {a: {type: string}}}`, true},
		{"a required field", `{type: object, required: [a], properties: {a: {type: string}}}`, false},
		{"a required field with a default", `{type: object, required: [a], properties: {a: {type: string, default: x}}}`, true},
		{"minProperties", `{type: object, minProperties: 1, properties: {a: {type: string}}}`, false},
		{"exactly one of (a rule)", `{type: object, properties: {a: {type: string}, b: {type: string}},
			x-kubernetes-validations: [{rule: "[has(self.a), has(self.b)].filter(x, x).size() == 1"}]}`, false},
		{"a rule {} passes", `{type: object, properties: {a: {type: string}}, x-kubernetes-validations: [{rule: "!has(self.a) || self.a != ''"}]}`, true},
		{"a rule that passes once defaulted", `{type: object, properties: {a: {type: string, default: x}}, x-kubernetes-validations: [{rule: "self.a == 'x'"}]}`, true},
		{"anyOf required", `{type: object, properties: {a: {type: string}, b: {type: string}}, anyOf: [{required: [a]}, {required: [b]}]}`, false},
	} {
		var s apiextensionsv1.JSONSchemaProps
		if err := yaml.Unmarshal([]byte(c.schema), &s); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := Accepts(&s, map[string]any{})
		if err != nil || got != c.want {
			t.Errorf("%s: Accepts = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}
