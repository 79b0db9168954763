package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTemplateSaidSo: a template that does not parse as YAML is named a
// template at its first action's line, with its chart when it is in one;
// a template that parses (an action in a string) is read as it is.
func TestTemplateSaidSo(t *testing.T) {
	dir := t.TempDir()
	chart := filepath.Join(dir, "op")
	write := func(name, text string) string {
		p := filepath.Join(chart, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	broken := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n"
	inChart := write("templates/cm.yaml", broken)
	write("Chart.yaml", "apiVersion: v2\nname: op\nversion: 1.0.0\n")
	_, err := ReadFile(inChart)
	if want := inChart + ":4: a template of the Helm chart " + chart + ", not YAML"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("in a chart: %v, want %s...", err, want)
	}
	_, err = Read("loose.yaml", []byte("a: 1\n---\n"+broken))
	if want := "loose.yaml:6: a template, not YAML until it is rendered"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("loose: %v, want %s...", err, want)
	}
	docs, err := Read("quoted.yaml", []byte("apiVersion: v1\nkind: ConfigMap\ndata:\n  a: \"{{ .x }}\"\n"))
	if err != nil || len(docs) != 1 {
		t.Errorf("an action in a string: %v", err)
	}
	_, err = Read("plain.yaml", []byte("a: [1\n"))
	if err == nil || strings.Contains(err.Error(), "template") {
		t.Errorf("not a template: %v", err)
	}
}
