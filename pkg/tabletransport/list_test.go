package tabletransport

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/kubectl-crd/kubectl-crd/pkg/printers"
)

// TestConvertListMatchesOneTable checks the batched conversion of a list
// against the Table of the whole list decoded at once, as client-go
// decodes it, for sizes around the batch, each way of including objects,
// and values of every JSON type.
func TestConvertListMatchesOneTable(t *testing.T) {
	conv, err := printers.NewConvertor(testCRD, "v1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, n := range []int{0, 1, batch - 1, batch, batch + 1, 3*batch + 7} {
		var items []string
		for i := range n {
			items = append(items, fmt.Sprintf(`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"t%d","namespace":"ns","labels":{"i":"%d"}},
				"spec":{"size":%d,"ratio":%g,"on":%v,"tags":["a",null,{"b":1}],"note":"x\u00e9\"y"}}`, i, i, i*1000000007, float64(i)/3, i%2 == 0))
		}
		data := []byte(`{"kind":"ThingList","apiVersion":"example.com/v1","metadata":{"resourceVersion":"42","continue":"next","remainingItemCount":5},"items":[` + strings.Join(items, ",") + `]}`)
		for _, include := range []metav1.IncludeObjectPolicy{"", metav1.IncludeObject, metav1.IncludeNone} {
			opts := &metav1.TableOptions{IncludeObject: include}
			got, ok, err := convertList(ctx, data, conv, opts)
			if err != nil || !ok {
				t.Fatalf("%d items: %v, %v", n, ok, err)
			}
			list, _, err := unstructured.UnstructuredJSONScheme.Decode(data, nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := conv.Table(ctx, list, opts)
			if err != nil {
				t.Fatal(err)
			}
			wantJSON, err := encodeTable(want)
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, got, wantJSON) {
				t.Errorf("%d items, includeObject %q:\n%s\nwant\n%s", n, include, got, wantJSON)
			}
		}
	}
	for _, notList := range []string{`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"t"}}`, `{"items":null}`, `not json`, `[]`} {
		if _, ok, _ := convertList(ctx, []byte(notList), conv, &metav1.TableOptions{}); ok {
			t.Errorf("%s taken for a list", notList)
		}
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}
