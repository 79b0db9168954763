package explain

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func featuresCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	files, err := catalog.ReadFiles([]string{filepath.Join("..", "..", "test/testdata/crds/features.schema.yaml")}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	crds, _ := files.List(context.Background())
	return crds[0].CustomResourceDefinition
}

// wantConstraints pairs each constraint kind with a field that has it.
var wantConstraints = []struct{ field, line string }{
	{"spec.replicas", "default: 1"},
	{"spec.replicas", "format: int32"},
	{"spec.replicas", "minimum: 0"},
	{"spec.replicas", "maximum: 100"},
	{"spec.low", "minimum: 0 (exclusive)"},
	{"spec.high", "maximum: 1000 (exclusive)"},
	{"spec.name", "minLength: 3"},
	{"spec.name", "maxLength: 63"},
	{"spec.name", "pattern: ^[a-z][a-z0-9-]*$"},
	{"spec.mode", `enum: "On", "Off", "Auto"`},
	{"spec.tags", "minItems: 1"},
	{"spec.tags", "maxItems: 10"},
	{"spec.tags", "list-type: set"},
	{"spec.tags", "items maxLength: 20"},
	{"spec.rules", "items rule: self.weight >= 0"},
	{"spec.rules", "  message: weight must not be negative"},
	{"spec.routes", "maxProperties: 8"},
	{"spec.routes.*", "required: backend"},
	{"spec.routes.*", "rule: self.backend == oldSelf.backend"},
	{"spec.routes.*", "  transition rule: checked on updates, against the old value"},
	{"spec.routes.*.backend", "minLength: 1"},
	{"spec.rules", "list-type: map"},
	{"spec.rules", "list-map-keys: name"},
	{"spec.note", "nullable: true"},
	{"spec.port", "int-or-string: true"},
	{"spec.extra", "preserve-unknown-fields: true"},
	{"spec.template", "embedded-resource: true"},
	{"spec.labels", "map-type: granular"},
	{"spec.frozen", "map-type: atomic"},
	{"spec.choice", `oneOf: [{"required":["a"]},{"required":["b"]}]`},
	{"spec.combined", `allOf: [{"minLength":1},{"maxLength":5}]`},
	{"spec.combined", `not: {"enum":["bad"]}`},
	{"spec", "required: mode"},
	{"spec", "rule: !has(self.low) || !has(self.high) || self.low <= self.high"},
	{"spec", "  message: low must not exceed high"},
	{"spec", "  reason: FieldValueInvalid"},
	{"spec", "  fieldPath: .low"},
	{"spec", "  messageExpression: self.replicas > 1 ? 'replicas must be 0 when mode is Off' : 'replica must be 0 when mode is Off'"},
}

func TestConstraintsOfEachKind(t *testing.T) {
	root, err := Schema(featuresCRD(t), "v1")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range wantConstraints {
		s, err := Field(root, strings.Split(w.field, "."))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(lines(Constraints(s)), w.line) {
			t.Errorf("%s: no %q in %q", w.field, w.line, lines(Constraints(s)))
		}
	}
	if _, err := Field(root, []string{"spec", "nosuch"}); err == nil || err.Error() != `field "spec.nosuch" does not exist` {
		t.Errorf("unknown field: %v", err)
	}
	if s, err := Field(root, []string{"spec", "rules", "weight"}); err != nil || Constraints(s)[0].Kind != Default || Constraints(s)[0].Value != "10" {
		t.Errorf("a field inside list items: %v", err)
	}
}

func TestWriteConstraintsAndMarkdown(t *testing.T) {
	crd := featuresCRD(t)
	root, _ := Schema(crd, "v1")
	var detailed bytes.Buffer
	if err := WriteConstraints(&detailed, root, []string{"spec"}, true); err != nil {
		t.Fatal(err)
	}
	var md bytes.Buffer
	if err := WriteMarkdown(&md, crd, "v1", nil); err != nil {
		t.Fatal(err)
	}
	for _, w := range wantConstraints {
		if !strings.Contains(detailed.String(), "  "+w.field+":\n") || !strings.Contains(detailed.String(), "    "+w.line+"\n") {
			t.Errorf("-o detailed lacks %s / %q", w.field, w.line)
		}
		name, value, _ := strings.Cut(strings.TrimSpace(w.line), ": ")
		value = strings.TrimSuffix(value, " (exclusive)")
		if name == "transition rule" {
			name, value = "transition rule", "checked on updates"
		}
		if !strings.Contains(md.String(), "`"+w.field+"`") || !strings.Contains(md.String(), name+": ") || !strings.Contains(md.String(), value) {
			t.Errorf("-o markdown lacks %s / %q", w.field, w.line)
		}
	}
	for _, want := range []string{"# Feature\n", "- API version: `schema.example.com/v1`", "### `spec.replicas`\n\nType: `integer`", "### `spec.mode`\n\nType: `string`, required", "#### `spec.rules.weight`", "Type: `[]Object`", "Type: `map[string]string`"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("-o markdown lacks %q", want)
		}
	}
}

func lines(cs []Constraint) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Lines()...)
	}
	return out
}

func TestTransitionRules(t *testing.T) {
	for rule, want := range map[string]bool{
		"self == oldSelf":                        true,
		"!has(oldSelf.x) || self.x >= oldSelf.x": true,
		"self.oldSelfish == 'oldSelf'":           false,
		"self.x > 0":                             false,
		"self.x >":                               false,
	} {
		if got := refersToOldSelf(rule); got != want {
			t.Errorf("%q: transition %v, want %v", rule, got, want)
		}
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{
		"a":             "`a`",
		"has(self.`x`)": "`` has(self.`x`) ``",
		"a\n  && b":     "`a && b`",
	} {
		if got := Code(in); got != want {
			t.Errorf("Code(%q) = %s, want %s", in, got, want)
		}
	}
}
