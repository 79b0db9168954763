package corpus

import (
	"bytes"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestOutputIsDeterministic: every verb that prints what it read gives the
// same bytes and exit code in two runs over every corpus CRD and the
// example objects the server took (no map order in text, JSON, Markdown
// or the files docs writes). An empty output would pass without comparing
// anything: each must print something.
func TestOutputIsDeterministic(t *testing.T) {
	needCorpus(t)
	crds, _ := writeProjects(t, func(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensionsv1.CustomResourceDefinition, error) {
		return crd, nil
	})
	objects := filepath.Join(t.TempDir(), "objects.yaml")
	var docs []byte
	for _, d := range accepted {
		docs = append(append(append(docs, "---\n"...), d.JSON...), '\n')
	}
	if err := os.WriteFile(objects, docs, 0o644); err != nil {
		t.Fatal(err)
	}
	env := []string{"KUBECONFIG=", "KUBECTL_CRD_CACHE_DIR="}
	for name, args := range map[string][]string{
		"cost text":      {"cost", "-f", crds},
		"cost json":      {"cost", "-f", crds, "-o", "json"},
		"cost markdown":  {"cost", "-f", crds, "-o", "markdown"},
		"list":           {"list", "--crds", crds},
		"list json":      {"list", "--crds", crds, "-o", "json"},
		"openapi":        {"openapi", "--crds", crds},
		"validate json":  {"validate", "-f", objects, "--crds", crds, "-o", "json"},
		"validate sarif": {"validate", "-f", objects, "--crds", crds, "-o", "sarif"},
		"diff":           {"diff", "-f", crds, "--old", crds, "-o", "json"},
	} {
		t.Run(name, func(t *testing.T) {
			first := bin.Run(t, "kubectl-crd", env, args...)
			second := bin.Run(t, "kubectl-crd", env, args...)
			switch {
			case first.Code > 1:
				t.Fatalf("exit %d: %s", first.Code, first.Stderr)
			case first.Stdout == "":
				t.Fatal("printed nothing: nothing would be compared")
			case first.Code != second.Code || first.Stdout != second.Stdout:
				t.Errorf("two runs differ: exit %d and %d, %d and %d bytes", first.Code, second.Code, len(first.Stdout), len(second.Stdout))
			}
		})
	}
	t.Run("docs", func(t *testing.T) {
		var sums [2][]byte
		for i := range sums {
			out := t.TempDir()
			if r := bin.Run(t, "kubectl-crd", env, "docs", "--crds", crds, "--output-dir", out, "--format", "markdown"); r.Code != 0 {
				t.Fatalf("exit %d: %s", r.Code, r.Stderr)
			}
			sums[i] = treeSum(t, out)
		}
		if !bytes.Equal(sums[0], sums[1]) {
			t.Error("two runs of docs wrote different files")
		}
	})
}

// treeSum is a hash of every file's path and bytes under dir; it fails
// the test on a tree without files.
func treeSum(t *testing.T, dir string) []byte {
	t.Helper()
	h := sha256.New()
	files := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		h.Write([]byte(rel + "\x00"))
		h.Write(data)
		files++
		return nil
	})
	if err != nil || files == 0 {
		t.Fatalf("%d files, %v", files, err)
	}
	return h.Sum(nil)
}
