package lint

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
)

// TestManyCRDsAtOnce: CRDs linted together (on every core, sharing the
// answers about {}) give each CRD the findings it gets alone, in file
// order; under -race this is the test of that sharing.
func TestManyCRDsAtOnce(t *testing.T) {
	var crds []catalog.InputCRD
	for _, path := range []string{"testdata/conventions.yaml", filepath.Join("..", "..", "examples", "crds"), filepath.Join("..", "..", "examples", "cost")} {
		crds = append(crds, readCRDs(t, path)...)
	}
	crds = append(crds, crds...)
	if len(crds) < 4 {
		t.Fatalf("%d CRDs", len(crds))
	}
	together, err := Lint(crds, Options{Profile: "kube"})
	if err != nil {
		t.Fatal(err)
	}
	var alone []Finding
	for _, c := range crds {
		found, err := Lint([]catalog.InputCRD{c}, Options{Profile: "kube"})
		if err != nil {
			t.Fatal(err)
		}
		alone = append(alone, found...)
	}
	inFileOrder(alone)
	if len(together) == 0 || !reflect.DeepEqual(together, alone) {
		t.Errorf("together %d findings, one by one %d, or they differ", len(together), len(alone))
	}
}
