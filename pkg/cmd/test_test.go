package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNothingToRun: a Test without results, and one whose results are
// all of Kyverno's own policies, check nothing: an error (exit 2), and
// what was left alone is said.
func TestNothingToRun(t *testing.T) {
	empty := t.TempDir()
	if err := os.WriteFile(filepath.Join(empty, "kyverno-test.yaml"), []byte("apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: x}\nresults: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, note string }{
		{empty, ""},
		{testdata("kyverno", "kyverno-only"), `Test "require-team": skipped`},
	} {
		f, _, errOut := testFactory(t)
		err := execute(f, "test", tt.dir)
		if err == nil || !strings.Contains(err.Error(), "nothing to run") {
			t.Errorf("%s: %v, want nothing to run", tt.dir, err)
		}
		if !strings.Contains(errOut.String(), tt.note) {
			t.Errorf("%s: stderr %q lacks %q", tt.dir, errOut.String(), tt.note)
		}
	}
}
