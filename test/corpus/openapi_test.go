package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/openapi"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestOpenAPIMatchesServer writes every corpus group version's v3 document
// with --output-dir and compares each with the server's, then compares the
// CRDs' paths and definitions of the v2 document.
func TestOpenAPIMatchesServer(t *testing.T) {
	needCorpus(t)
	dir := t.TempDir()
	r := bin.Run(t, "kubectl-crd", nil, "openapi", "--output-dir", dir)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var all []*apiextensionsv1.CustomResourceDefinition
	for _, crds := range projects {
		all = append(all, crds...)
	}
	for _, gv := range openapi.GroupVersions(all) {
		t.Run("v3 "+gv.String(), func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, "apis", gv.Group, gv.Version+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var ours any
			if err := json.Unmarshal(data, &ours); err != nil {
				t.Fatal(err)
			}
			harness.EventuallyEqualJSON(t, gv.String(), ours, func() (any, error) {
				return harness.ServerDocument(testCluster.Config, "/openapi/v3/apis/"+gv.String())
			})
		})
	}

	t.Run("v2", func(t *testing.T) {
		r := bin.Run(t, "kubectl-crd", nil, "openapi", "--openapi-version=2")
		if r.Code != 0 {
			t.Fatalf("exit %d: %s", r.Code, r.Stderr)
		}
		var ours map[string]any
		if err := json.Unmarshal([]byte(r.Stdout), &ours); err != nil {
			t.Fatal(err)
		}
		defs := ours["definitions"].(map[string]any)
		for k := range defs {
			if strings.HasPrefix(k, "io.k8s.apimachinery.") {
				delete(defs, k)
			}
		}
		for _, key := range []string{"paths", "definitions"} {
			harness.EventuallyEqualJSON(t, key, ours[key], func() (any, error) {
				server, err := harness.ServerDocument(testCluster.Config, "/openapi/v2")
				if err != nil {
					return nil, err
				}
				sub := harness.Subset(ours, server, key)
				return sub, nil
			})
		}
	})
}
