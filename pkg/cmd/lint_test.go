package cmd

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestLintExitAndJSON: a finding at error severity exits 1, the same run
// with that check lowered exits 0; -o json has the fields the docs name;
// a file that cannot be read exits 2.
func TestLintExitAndJSON(t *testing.T) {
	crds := filepath.Join("..", "lint", "testdata", "conventions.yaml")
	f, out, _ := testFactory(t)
	if code := exitCodeOf(execute(f, "lint", "-f", crds, "-o", "json")); code != 1 {
		t.Errorf("enum-value, default-value and listmap-key are errors: exit %d", code)
	}
	var got struct {
		Findings []map[string]any `json:"findings"`
	}
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || len(got.Findings) == 0 {
		t.Fatalf("%v: %s", err, out)
	}
	for _, key := range []string{"file", "line", "column", "crd", "version", "check", "severity", "field", "message", "fix"} {
		if _, ok := got.Findings[0][key]; !ok {
			t.Errorf("a finding has no %q: %v", key, got.Findings[0])
		}
	}
	f, _, _ = testFactory(t)
	if code := exitCodeOf(execute(f, "lint", "-f", crds, "--check", "enum-value=warning", "--check", "default-value=warning", "--check", "listmap-key=warning")); code != 0 {
		t.Errorf("no error finding: exit %d", code)
	}
	f, _, _ = testFactory(t)
	if code := exitCodeOf(execute(f, "lint", "-f", filepath.Join(t.TempDir(), "missing.yaml"))); code != 2 {
		t.Errorf("a missing file: exit %d", code)
	}
}
