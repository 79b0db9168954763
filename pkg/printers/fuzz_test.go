package printers

import (
	"context"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FuzzTable: any object (valid for its CRD or not) becomes a Table row
// (a row per item when it has a top-level items list, as on the server),
// or an error, through the printer columns of a CRD with every column
// type and format; never a panic.
func FuzzTable(f *testing.F) {
	for _, name := range []string{"../../test/testdata/objects/samples.yaml", "../../test/testdata/objects/features.yaml", "../../examples/objects/valid/crontabs.yaml"} {
		docs, _ := manifest.ReadFile(name)
		for _, d := range docs {
			f.Add(d.JSON)
		}
	}
	f.Add([]byte(`{"apiVersion":"printing.example.com/v1","kind":"Sample","metadata":{"name":"x","creationTimestamp":"bad"},"spec":{"count":"NaN","ratio":[1,2],"when":7}}`))
	files, err := catalog.ReadFiles([]string{"../../test/testdata/crds/samples.printing.yaml"}, nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	crds, _ := files.List(context.Background())
	conv, err := NewConvertor(crds[0].CustomResourceDefinition, "v1")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		obj := &unstructured.Unstructured{}
		if obj.UnmarshalJSON(data) != nil {
			return
		}
		for _, include := range []metav1.IncludeObjectPolicy{metav1.IncludeMetadata, metav1.IncludeObject, metav1.IncludeNone} {
			table, err := conv.Table(context.Background(), obj, &metav1.TableOptions{IncludeObject: include})
			// An object with a list of items at the top is a list to the
			// server's Table convertor too (meta.IsListType): a row per item.
			if err == nil && !obj.IsList() && len(table.Rows) != 1 {
				t.Fatalf("%d rows for one object", len(table.Rows))
			}
		}
	})
}
