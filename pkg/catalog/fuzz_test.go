package catalog

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

// FuzzLoadCRDs: CRDs read from any file load (or fail with a place)
// without panicking, and TYPE resolution over them does not panic.
func FuzzLoadCRDs(f *testing.F) {
	for _, dir := range []string{"../../test/testdata/crds", "../../test/testdata/badcrds", "../../examples/crds"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var crds []*CRD
		docs := manifest.ReadLenient("f", data)
		for i := range docs {
			d := &docs[i]
			if d.Err != nil || !IsCRD(d.TypeMeta()) {
				continue
			}
			crd, err := DecodeCRD(d)
			if err != nil {
				if e, ok := err.(*manifest.Error); !ok || e.File != "f" {
					t.Fatalf("error without its place: %v", err)
				}
				continue
			}
			crds = append(crds, crd)
		}
		files, err := NewFiles(crds)
		if err != nil {
			return
		}
		c := New(files, func(string) {})
		for _, crd := range crds {
			for _, arg := range []string{crd.Spec.Names.Plural, crd.Spec.Names.Kind, crd.Name, "all", crd.Spec.Names.Singular + ".x"} {
				_, _ = c.Resolve(context.Background(), arg)
			}
		}
	})
}
