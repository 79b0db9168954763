package validate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

// FuzzValidate: a CRD and objects, both arbitrary: the CRD is checked as
// the server checks it and, when the server would take it, the objects
// are checked against it; nothing panics and every object gets a verdict.
func FuzzValidate(f *testing.F) {
	read := func(name string) []byte { b, _ := os.ReadFile(name); return b }
	crds, _ := filepath.Glob("../../test/testdata/crds/*.yaml")
	objs := []string{"../../test/testdata/objects/features.yaml", "../../test/testdata/objects/samples.yaml", "../../examples/objects/invalid/crontabs.yaml"}
	for i, c := range append(crds, "../../examples/crds/crontab.yaml", "../../test/testdata/updates/ledgers.crd.yaml") {
		f.Add(read(c), read(objs[i%len(objs)]))
	}
	f.Fuzz(func(t *testing.T, crdData, objData []byte) {
		var crd *catalog.CRD
		crdDocs := manifest.ReadLenient("crd.yaml", crdData)
		for i := range crdDocs {
			d := &crdDocs[i]
			if d.Err != nil || !catalog.IsCRD(d.TypeMeta()) {
				continue
			}
			if res := CRD(context.Background(), d.JSON, nil); res.Err != nil || len(res.Unknown) > 0 {
				continue
			}
			if c, err := catalog.DecodeCRD(d); err == nil {
				crd = c
			}
		}
		if crd == nil {
			return
		}
		files, err := catalog.NewFiles([]*catalog.CRD{crd})
		if err != nil {
			t.Fatal(err)
		}
		docs := manifest.ReadLenient("objects.yaml", objData)
		r, err := documents(context.Background(), manifest.InputOf("objects.yaml", objData), catalog.New(files, nil), Options{StrictKinds: true, Keep: true})
		if err != nil {
			t.Fatalf("offline, finding CRDs cannot fail: %v", err)
		}
		if len(r.Results) != len(docs) {
			t.Fatalf("%d documents, %d results", len(docs), len(r.Results))
		}
		for _, res := range r.Results {
			if res.Status == "" || (res.Status == "invalid" && len(res.Errors) == 0) {
				t.Fatalf("result without a verdict or a reason: %+v", res)
			}
		}
	})
}
