package e2e

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

// groupVersions are the group versions the test CRDs serve.
var groupVersions = []string{
	"alpha.example.com/v1", "alpha.example.com/v1beta1", "alpha.example.com/v2alpha1",
	"beta.example.com/v1beta2", "beta.example.com/v1alpha1", "gamma.example.com/v1",
	"printing.example.com/v1", "printing.example.com/v1beta1", "stable.example.com/v1",
	"stable.example.com/v1beta1", "zeta.example.com/v1", "schema.example.com/v1",
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, s)
	}
	return v
}

// TestOpenAPIV3MatchesServer compares each group version's document with
// the server's /openapi/v3/apis/GROUP/VERSION, online and offline.
func TestOpenAPIV3MatchesServer(t *testing.T) {
	for _, gv := range groupVersions {
		t.Run(gv, func(t *testing.T) {
			online := bin.Run(t, "kubectl-crd", nil, "openapi", gv)
			if online.Code != 0 {
				t.Fatalf("exit %d: %s", online.Code, online.Stderr)
			}
			harness.EventuallyEqualJSON(t, gv, decodeJSON(t, online.Stdout), func() (any, error) {
				return harness.ServerDocument(testCluster.Config, "/openapi/v3/apis/"+gv)
			})
			offline := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "openapi", gv, "--crds", crdDirs[0], "--crds", crdDirs[1])
			if offline.Stdout != online.Stdout || offline.Code != 0 {
				t.Errorf("offline (exit %d) differs from online:\n%s\n%s", offline.Code, offline.Stdout, offline.Stderr)
			}
		})
	}
}

// TestOpenAPIV2MatchesServer compares our paths and the CRDs' definitions
// with the same entries of the server's /openapi/v2, and checks the server
// has no path for these CRDs that we lack. (The shared definitions of
// io.k8s.apimachinery types come from the server's own static spec, which
// lists the GVKs of every built-in group; ours list those the builder
// knows.)
func TestOpenAPIV2MatchesServer(t *testing.T) {
	r := bin.Run(t, "kubectl-crd", nil, "openapi", "--openapi-version=2")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	ours := decodeJSON(t, r.Stdout)
	defs := ours.(map[string]any)["definitions"].(map[string]any)
	for k := range defs {
		if strings.HasPrefix(k, "io.k8s.apimachinery.") {
			delete(defs, k)
		}
	}
	if len(defs) < 2*len(groupVersions) {
		t.Fatalf("only %d CRD definitions", len(defs))
	}
	for _, key := range []string{"paths", "definitions"} {
		harness.EventuallyEqualJSON(t, key, ours.(map[string]any)[key], func() (any, error) {
			server, err := harness.ServerDocument(testCluster.Config, "/openapi/v2")
			if err != nil {
				return nil, err
			}
			sub := harness.Subset(ours, server, key)
			if key == "paths" {
				for p := range server.(map[string]any)["paths"].(map[string]any) {
					if strings.Contains(p, ".example.com/") && sub.(map[string]any)[p] == nil {
						return nil, fmt.Errorf("the server has path %s, we do not", p)
					}
				}
			}
			return sub, nil
		})
	}
	// Offline from the files the cluster's CRDs came from, for those CRDs
	// (other tests create more).
	var types []string
	for _, dir := range crdDirs {
		docs, err := manifest.ReadPaths([]string{dir}, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range docs {
			if catalog.IsCRD(docs[i].TypeMeta()) {
				crd, err := catalog.DecodeCRD(&docs[i])
				if err != nil {
					t.Fatal(err)
				}
				types = append(types, crd.Name)
			}
		}
	}
	online := bin.Run(t, "kubectl-crd", nil, append([]string{"openapi", "--openapi-version=2"}, types...)...)
	offline := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, append([]string{"openapi", "--openapi-version=2", "--crds", crdDirs[0], "--crds", crdDirs[1]}, types...)...)
	if offline.Stdout != online.Stdout || offline.Code != 0 || online.Code != 0 {
		t.Errorf("offline v2 differs from online")
	}
}

func TestOpenAPIOutputDir(t *testing.T) {
	dir := t.TempDir()
	r := bin.Run(t, "kubectl-crd", nil, "openapi", "--output-dir", dir, "-o", "yaml")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	for _, gv := range groupVersions {
		if _, err := readFile(dir + "/apis/" + gv + ".yaml"); err != nil {
			t.Errorf("no document for %s: %v", gv, err)
		}
	}
	dir = t.TempDir()
	r = bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "openapi", "-o", "jsonschema", "--output-dir", dir, "crontabs", "--crds", crdDirs[1])
	if r.Code != 0 {
		t.Fatalf("-o jsonschema: exit %d: %s", r.Code, r.Stderr)
	}
	for _, f := range []string{"crontab_v1.json", "crontab_v1beta1.json", "stable.example.com/crontab_v1.json", "stable.example.com/crontab_v1beta1.json"} {
		data, err := readFile(dir + "/" + f)
		if err != nil || !strings.Contains(string(data), `"$schema"`) {
			t.Errorf("%s: %v", f, err)
		}
	}
	dir = t.TempDir()
	r = bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "openapi", "--layout", "vscode", "--output-dir", dir, "crontabs", "--crds", crdDirs[1])
	if r.Code != 0 {
		t.Fatalf("--layout vscode: exit %d: %s", r.Code, r.Stderr)
	}
	if got := filesUnder(t, dir); !slices.Equal(got, []string{"stable.example.com/crontab_v1.json", "stable.example.com/crontab_v1beta1.json"}) {
		t.Errorf("--layout vscode wrote %q", got)
	}
	r = bin.Run(t, "kubectl-crd", nil, "openapi", "-o", "jsonschema")
	if r.Code != 2 || !strings.Contains(r.Stderr, "needs --output-dir") {
		t.Errorf("-o jsonschema without --output-dir: exit %d, %s", r.Code, r.Stderr)
	}
	r = bin.Run(t, "kubectl-crd", nil, "openapi", "nosuch.example.com/v1")
	if r.Code != 2 || r.Stderr != "error: no CustomResourceDefinition serves nosuch.example.com/v1\n" {
		t.Errorf("unknown group version: exit %d, %s", r.Code, r.Stderr)
	}
}

// filesUnder lists the files under dir, slash-separated and sorted.
func filesUnder(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, path)
			files = append(files, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}
