package validate

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
		var crd *apiextensionsv1.CustomResourceDefinition
		for _, d := range manifest.ReadLenient("crd.yaml", crdData) {
			if d.Err != nil || !catalog.IsCRD(d.TypeMeta()) {
				continue
			}
			if res := CRD(context.Background(), d.JSON); res.Err != nil || len(res.Unknown) > 0 {
				continue
			}
			if c, err := catalog.DecodeCRD(d); err == nil {
				crd = c.CustomResourceDefinition
			}
		}
		if crd == nil {
			return
		}
		lookup := func(_ context.Context, gvk schema.GroupVersionKind) (*apiextensionsv1.CustomResourceDefinition, error) {
			if gvk.Group == crd.Spec.Group && gvk.Kind == crd.Spec.Names.Kind {
				return crd, nil
			}
			return nil, nil
		}
		docs := manifest.ReadLenient("objects.yaml", objData)
		r := Documents(context.Background(), docs, lookup, Options{StrictKinds: true, Keep: true})
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
