package lint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
)

// BenchmarkLintTheCorpus lints the CRDs of every project of the test
// corpus (KUBECTL_CRD_CORPUS, default ../../../shared/corpus) under the
// kube profile, every check on, read once before the clock starts:
//
//	go test -run '^$' -bench LintTheCorpus -benchtime 3x ./pkg/lint
func BenchmarkLintTheCorpus(b *testing.B) {
	corpus := os.Getenv("KUBECTL_CRD_CORPUS")
	if corpus == "" {
		corpus = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	dirs, _ := filepath.Glob(filepath.Join(corpus, "*", "crds"))
	if len(dirs) == 0 {
		b.Skip("no corpus at " + corpus)
	}
	var crds []catalog.InputCRD
	for _, d := range dirs {
		crds = append(crds, readCRDs(b, d)...)
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Lint(crds, Options{Profile: "kube"}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(crds)), "CRDs")
}
