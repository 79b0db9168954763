package openapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"sigs.k8s.io/yaml"
)

// TestJSONSchemaAgreesWithServer checks each OpenAPI v3.0 keyword whose
// meaning differs in draft 7 against the server's own schema validation
// (after its defaulting): the exported schema, compiled by a draft 7
// validator that asserts formats, accepts every value the server accepts,
// and refuses every value the server refuses, except where a refusal is
// beyond JSON Schema (formats: Kubernetes' are not draft 7's).
func TestJSONSchemaAgreesWithServer(t *testing.T) {
	tests := []struct {
		schema string // the schema of spec.x
		values []string
		blind  bool // the server refuses what JSON Schema cannot say
	}{
		{schema: `{type: integer, minimum: 0, exclusiveMinimum: true}`, values: []string{`0`, `1`, `-1`}},
		{schema: `{type: number, maximum: 10, exclusiveMaximum: true}`, values: []string{`10`, `9.5`, `11`}},
		{schema: `{type: integer, minimum: 0, exclusiveMinimum: false}`, values: []string{`0`, `-1`}},
		{schema: `{type: integer, maximum: 3, exclusiveMaximum: false, minimum: 1, exclusiveMinimum: true}`, values: []string{`1`, `2`, `3`, `4`}},
		{schema: `{type: string, nullable: true}`, values: []string{`null`, `"a"`, `1`}},
		{schema: `{type: string, enum: [a, b], nullable: true}`, values: []string{`null`, `"a"`, `"c"`}},
		{schema: `{type: string, enum: [a, b]}`, values: []string{`"a"`, `"c"`}},
		{schema: `{x-kubernetes-int-or-string: true}`, values: []string{`5`, `"5"`, `true`, `1.5`}},
		{schema: `{x-kubernetes-int-or-string: true, nullable: true}`, values: []string{`null`, `5`, `"5"`, `true`}},
		{schema: `{x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}], nullable: true}`, values: []string{`null`, `5`, `[]`}},
		{schema: `{type: object, required: [mode, size], properties: {mode: {type: string, default: fast}, size: {type: integer}}}`,
			values: []string{`{}`, `{"size": 1}`, `{"mode": "slow", "size": 1}`, `{"mode": 1, "size": 1}`}},
		// A oneOf over a defaulted field (gateway-api's addresses): absent,
		// the field is its default on the server.
		{schema: `{type: object, properties: {type: {type: string, default: IP}, value: {type: string}},
			oneOf: [{properties: {type: {enum: [IP]}}}, {properties: {type: {not: {enum: [IP]}}}}]}`,
			values: []string{`{}`, `{"value": "1.2.3.4"}`, `{"type": "IP"}`, `{"type": "Host"}`}},
		{schema: `{type: object, properties: {mode: {type: string, default: a}}, not: {properties: {mode: {enum: [b]}}}}`,
			values: []string{`{}`, `{"mode": "a"}`, `{"mode": "b"}`}},
		{schema: `{type: object, properties: {mode: {type: string, default: b}, other: {type: integer}}, anyOf: [{properties: {mode: {enum: [a]}}}, {required: [other]}]}`,
			values: []string{`{}`, `{"mode": "a"}`, `{"other": 1}`}},
		{schema: `{type: object, nullable: true, properties: {a: {type: string}}}`, values: []string{`null`, `{"a": "b"}`, `{"a": 1}`}},
		{schema: `{type: string, format: int32}`, values: []string{`"x"`}},
		{schema: `{type: string, format: uri}`, values: []string{`"/relative"`, `"https://example.com"`}},
		{schema: `{type: string, format: date-time}`, values: []string{`"2024-01-01T00:00:00Z"`, `"not a time"`}, blind: true},
		{schema: `{type: string, format: byte}`, values: []string{`"aGVsbG8="`, `"not base64!"`}, blind: true},
		{schema: `{type: string, format: duration}`, values: []string{`"5s"`}},
	}
	for _, tt := range tests {
		var x apiextensionsv1.JSONSchemaProps
		if err := yaml.UnmarshalStrict([]byte(tt.schema), &x); err != nil {
			t.Fatalf("%s: %v", tt.schema, err)
		}
		root := &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"x": x}}}}
		crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: root}}}}}
		server := serverValidator(t, root)
		exported := compileAsserting(t, crd)
		for _, value := range tt.values {
			t.Run(tt.schema+" "+value, func(t *testing.T) {
				object := fmt.Sprintf(`{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"x": %s}}`, value)
				serverOK := server(object)
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(object))
				if err != nil {
					t.Fatal(err)
				}
				schemaErr := exported.Validate(inst)
				switch {
				case serverOK && schemaErr != nil:
					t.Errorf("the server accepts it; the exported schema refuses it: %v", schemaErr)
				case !serverOK && schemaErr == nil && !tt.blind:
					t.Errorf("the server refuses it; the exported schema accepts it")
				case !serverOK && schemaErr != nil && tt.blind:
					t.Errorf("a refusal said to be beyond JSON Schema is made by it: %v", schemaErr)
				}
			})
		}
	}
}

// serverValidator returns the server's verdict on an object: defaulted,
// then validated against the schema, as a create is.
func serverValidator(t *testing.T, root *apiextensionsv1.JSONSchemaProps) func(object string) bool {
	t.Helper()
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(root, &internal, nil); err != nil {
		t.Fatal(err)
	}
	structural, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(&internal)
	if err != nil {
		t.Fatal(err)
	}
	return func(object string) bool {
		var v map[string]any
		if err := json.Unmarshal([]byte(object), &v); err != nil {
			t.Fatal(err)
		}
		structuraldefaulting.Default(v, structural)
		return len(apiservervalidation.ValidateCustomResource(nil, v, validator)) == 0
	}
}

// compileAsserting compiles the exported schema as a strict consumer
// would: draft 7, formats asserted.
func compileAsserting(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft7)
	c.AssertFormat()
	return compileWith(t, c, crd, "v1")
}
