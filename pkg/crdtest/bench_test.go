package crdtest

import (
	"context"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
)

// BenchmarkSuites runs the project's suites (160 cases) in-process, CRDs
// read once: what a run of kubectl crd test does after its start.
func BenchmarkSuites(b *testing.B) {
	files, err := catalog.ReadFiles([]string{"../../examples/crds", "../../test/testdata/crds", "../../test/testdata/suites/crds"}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	suites, err := Read([]string{"../../examples/tests", "../../test/testdata/suites"}, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		results := (&Runner{Catalog: catalog.New(files, nil)}).Run(context.Background(), suites)
		if s := Summarize(results, GivenBy(suites)); s.Passed != len(results) {
			b.Fatalf("%+v", s)
		}
	}
}
