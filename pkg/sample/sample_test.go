package sample

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// crdsUnder reads every CRD of the YAML files under root, each name once.
func crdsUnder(t testing.TB, root string) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var out []*apiextensionsv1.CustomResourceDefinition
	seen := map[string]bool{}
	_ = filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		files, err := catalog.ReadFiles([]string{path}, nil, nil)
		if err != nil {
			return nil
		}
		list, _ := files.List(context.Background())
		for _, c := range list {
			if !seen[c.Name] {
				seen[c.Name] = true
				out = append(out, c.CustomResourceDefinition)
			}
		}
		return nil
	})
	return out
}

// TestSamplesPassTheServersValidation makes the minimal and the full
// sample of every served version of the test CRDs (and the corpus's, when
// present) and counts those the server's validation takes; the
// differential test against kube-apiserver itself is test/corpus's.
func TestSamplesPassTheServersValidation(t *testing.T) {
	roots := []string{filepath.Join("..", "..", "test", "testdata", "crds"), filepath.Join("..", "..", "examples")}
	corpus := os.Getenv("KUBECTL_CRD_CORPUS")
	if corpus == "" {
		corpus = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(corpus); err == nil {
		roots = append(roots, corpus)
	}
	for _, root := range roots {
		for _, full := range []bool{false, true} {
			made, accepted := 0, 0
			causes := map[string]int{}
			for _, crd := range crdsUnder(t, root) {
				for _, v := range crd.Spec.Versions {
					if !v.Served {
						continue
					}
					s, err := Make(context.Background(), crd, v.Name, Options{Full: full})
					if err != nil {
						t.Errorf("%s %s: %v", crd.Name, v.Name, err)
						continue
					}
					made++
					if len(s.Refused) == 0 {
						accepted++
						continue
					}
					c := s.Refused[0]
					causes[fmt.Sprintf("%s %s: %s: %s", crd.Name, v.Name, c.Field, firstLine(c.Message))]++
				}
			}
			t.Logf("%s, full %v: %d of %d samples pass (%.1f%%)", filepath.Base(root), full, accepted, made, 100*float64(accepted)/float64(max(made, 1)))
			var list []string
			for c := range causes {
				list = append(list, c)
			}
			sort.Strings(list)
			for _, c := range list {
				t.Logf("  refused: %s", c)
			}
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

var _ = validate.FieldError{}
