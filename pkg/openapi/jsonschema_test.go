package openapi

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/santhosh-tekuri/jsonschema/v6"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func readCRD(t *testing.T, path string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, err := catalog.ReadFiles([]string{path}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	crds, _ := files.List(context.Background())
	if len(crds) != 1 {
		t.Fatalf("%s: %d CRDs", path, len(crds))
	}
	return crds[0].CustomResourceDefinition
}

func compile(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, version string) *jsonschema.Schema {
	t.Helper()
	return compileWith(t, jsonschema.NewCompiler(), crd, version)
}

// compileWith exports a CRD version's JSON Schema and compiles it, read
// back from JSON as a file would be.
func compileWith(t *testing.T, c *jsonschema.Compiler, crd *apiextensionsv1.CustomResourceDefinition, version string) *jsonschema.Schema {
	t.Helper()
	doc, err := JSONSchema(crd, version)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(doc)
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("crd.json", v); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("crd.json")
	if err != nil {
		t.Fatalf("the exported schema does not compile: %v\n%s", err, data)
	}
	return s
}

// TestJSONSchemaValidatesExamples checks the exported CronTab schema with a
// JSON Schema validator: the valid examples pass, and each object that
// breaks a rule JSON Schema can state fails at the right field.
func TestJSONSchemaValidatesExamples(t *testing.T) {
	root := filepath.Join("..", "..")
	schema := compile(t, readCRD(t, filepath.Join(root, "examples/crds/crontab.yaml")), "v1")
	docs, err := manifest.ReadFile(filepath.Join(root, "examples/objects/valid/crontabs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := schema.Validate(instance(t, d.JSON)); err != nil {
			t.Errorf("%s: a valid CronTab fails: %v", d.Pos(), err)
		}
	}
	invalid := map[string]string{
		"bad-cron-spec":     "/spec/cronSpec",
		"too-many-replicas": "/spec/replicas",
		"unknown-field":     "/spec",
	}
	docs, err = manifest.ReadFile(filepath.Join(root, "examples/objects/invalid/crontabs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		var m struct {
			Metadata struct{ Name string } `json:"metadata"`
		}
		json.Unmarshal(d.JSON, &m)
		field, ok := invalid[m.Metadata.Name]
		if !ok {
			continue // a CEL rule: beyond JSON Schema
		}
		err := schema.Validate(instance(t, d.JSON))
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("%s (%s): want an error at %s, got %v", d.Pos(), m.Metadata.Name, field, err)
		}
	}
}

// TestJSONSchemaShape checks the conversions one by one.
func TestJSONSchemaShape(t *testing.T) {
	crd := readCRD(t, filepath.Join("..", "..", "test/testdata/crds/samples.printing.yaml"))
	doc, err := JSONSchema(crd, "v1")
	if err != nil {
		t.Fatal(err)
	}
	props := doc["properties"].(map[string]any)
	if doc["additionalProperties"] != false {
		t.Error("the root does not forbid unknown fields")
	}
	if spec := props["spec"].(map[string]any); spec["additionalProperties"] != nil {
		t.Error("spec preserves unknown fields but the schema forbids them")
	}
	if md := props["metadata"].(map[string]any); md["additionalProperties"] != nil {
		t.Error("metadata fields are forbidden")
	}
	if kind := props["kind"].(map[string]any); kind["enum"].([]any)[0] != "Sample" {
		t.Errorf("kind: %v", kind)
	}
	if doc["$schema"] != JSONSchemaDraft {
		t.Errorf("$schema %v", doc["$schema"])
	}

	s := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"port":     map[string]any{"x-kubernetes-int-or-string": true},
			"maybe":    map[string]any{"type": "string", "nullable": true},
			"labels":   map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "object"}},
			"embedded": map[string]any{"type": "object", "x-kubernetes-embedded-resource": true, "properties": map[string]any{"spec": map[string]any{"type": "object"}}},
		},
	}
	convert(s, false, false)
	p := s["properties"].(map[string]any)
	if _, ok := p["port"].(map[string]any)["anyOf"]; !ok {
		t.Error("int-or-string has no anyOf")
	}
	if ty := p["maybe"].(map[string]any)["type"]; len(ty.([]any)) != 2 {
		t.Errorf("nullable type %v", ty)
	}
	if ap := p["labels"].(map[string]any)["additionalProperties"].(map[string]any); ap["additionalProperties"] != false {
		t.Error("map values are not closed objects")
	}
	emb := p["embedded"].(map[string]any)["properties"].(map[string]any)
	if _, ok := emb["apiVersion"]; !ok || emb["metadata"] == nil {
		t.Error("embedded resource lacks apiVersion/metadata")
	}
}

func instance(t *testing.T, data []byte) any {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
