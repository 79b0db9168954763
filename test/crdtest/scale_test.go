package crdtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestThousandCases: a thousand cases over fifty CRDs (the project's
// Feature and Ledger CRDs and suites, copied into 25 groups each) run
// through the binary in seconds.
func TestThousandCases(t *testing.T) {
	dir := t.TempDir()
	type source struct{ crd, suite, group string }
	sources := []source{
		{filepath.Join(repoRoot, "test/testdata/crds/features.schema.yaml"), filepath.Join(repoRoot, "test/testdata/suites/features.testsuite.yaml"), "schema.example.com"},
		{filepath.Join(repoRoot, "test/testdata/suites/crds/ledgers.yaml"), filepath.Join(repoRoot, "test/testdata/suites/ledgers.testsuite.yaml"), "suites.example.com"},
	}
	cases := 0
	for _, src := range sources {
		crd, err := os.ReadFile(src.crd)
		if err != nil {
			t.Fatal(err)
		}
		suite, err := os.ReadFile(src.suite)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 25 {
			group := fmt.Sprintf("g%d.%s", i, src.group)
			name := fmt.Sprintf("%d-%s", i, filepath.Base(src.suite))
			writeTo(t, filepath.Join(dir, "crds", name), strings.ReplaceAll(string(crd), src.group, group))
			writeTo(t, filepath.Join(dir, "suites", name), strings.ReplaceAll(string(suite), src.group, group))
			cases += strings.Count(string(suite), "\n  - name: ")
		}
	}
	start := time.Now()
	r := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "test", filepath.Join(dir, "suites"), "--crds", filepath.Join(dir, "crds"), "--crd-cache-dir", "")
	elapsed := time.Since(start)
	want := fmt.Sprintf("%d of %d cases passed in 50 suites\n", cases, cases)
	if r.Code != 0 || !strings.HasSuffix(r.Stdout, want) || cases < 1000 {
		t.Fatalf("exit %d, want %q (%d cases):\n%s%s", r.Code, want, cases, r.Stdout, r.Stderr)
	}
	t.Logf("%d cases over 50 CRDs in %v, %d MiB at most", cases, elapsed.Round(time.Millisecond), r.PeakRSS>>20)
	if elapsed > 15*time.Second {
		t.Errorf("took %v", elapsed)
	}
}

func writeTo(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
