package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

// TestCRDIndex runs the built binary over --crds files with the index of
// CRD files off, cold, warm, filled by two processes at once, and after a
// CRD file changed: validate, get, explain and list answer the same each
// time.
func TestCRDIndex(t *testing.T) {
	crds := t.TempDir()
	for _, dir := range crdDirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(crds, filepath.Base(f)), string(data))
		}
	}
	// Files changed within two seconds are not indexed.
	time.Sleep(2100 * time.Millisecond)

	offline := []string{"KUBECONFIG="}
	commands := [][]string{
		{"validate", "-o", "json", "-R", "-f", objectDir, "-f", filepath.Join(repoRoot, "examples/objects")},
		{"get", "-o", "wide", "-f", filepath.Join(objectDir, "samples.yaml")},
		{"explain", "crontabs.spec", "-o", "detailed"},
		{"list", "-o", "json"},
	}
	run := func(env []string, command []string) harness.Result {
		t.Helper()
		return bin.Run(t, "kubectl-crd", append(append([]string(nil), offline...), env...), append(command, "--crds", crds)...)
	}
	same := func(step string, index []string) {
		t.Helper()
		for _, c := range commands {
			want := run([]string{"KUBECTL_CRD_CACHE_DIR="}, c)
			if want.Code > 1 {
				t.Fatalf("%v without the index: exit %d\n%s", c, want.Code, want.Stderr)
			}
			got := run(index, c)
			if got.Stdout != want.Stdout || got.Stderr != want.Stderr || got.Code != want.Code {
				t.Errorf("%s: %v answers otherwise with the index (exit %d, %d):\n%s%s\nwithout:\n%s%s",
					step, c, got.Code, want.Code, got.Stdout, got.Stderr, want.Stdout, want.Stderr)
			}
		}
	}

	index := t.TempDir()
	env := []string{"KUBECTL_CRD_CACHE_DIR=" + index}
	same("cold", env)
	if entries, _ := filepath.Glob(filepath.Join(index, "*.index")); len(entries) == 0 {
		t.Fatal("nothing was indexed")
	}
	same("warm", env)

	// The flag overrides the environment; "" is no index.
	off := t.TempDir()
	r := bin.Run(t, "kubectl-crd", append(offline, "KUBECTL_CRD_CACHE_DIR="+off), "explain", "crontabs", "--crds", crds, "--crd-cache-dir", "")
	if entries, _ := os.ReadDir(off); r.Code != 0 || len(entries) != 0 {
		t.Errorf("--crd-cache-dir \"\": exit %d, %d entries written", r.Code, len(entries))
	}

	// Two processes fill a new index at once.
	shared := []string{"KUBECTL_CRD_CACHE_DIR=" + t.TempDir()}
	var wg sync.WaitGroup
	results := make([]harness.Result, 2)
	for i := range results {
		wg.Go(func() { results[i] = run(shared, commands[0]) })
	}
	wg.Wait()
	if results[0].Stdout != results[1].Stdout || results[0].Code != results[1].Code {
		t.Errorf("two processes at once answer differently")
	}
	same("filled at once", shared)

	// A CRD file changes between runs: the answer follows the file.
	crontab := filepath.Join(crds, "crontab.yaml")
	data, err := os.ReadFile(crontab)
	if err != nil {
		t.Fatal(err)
	}
	tighter := strings.Replace(string(data), "maximum: 10", "maximum: 2", 1)
	if tighter == string(data) {
		t.Fatal("the example CRD has no maximum: 10 to change")
	}
	writeFile(t, crontab, tighter)
	same("changed", env)
	same("changed, warm", env)
}
