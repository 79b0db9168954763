package tabletransport

import (
	"context"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kubectl-crd/kubectl-crd/pkg/printers"
)

// BenchmarkConvertList converts one page of 500 items shaped as the server
// sends them (metadata with managedFields), as kubectl get asks for it.
func BenchmarkConvertList(b *testing.B) {
	conv, err := printers.NewConvertor(testCRD, "v1")
	if err != nil {
		b.Fatal(err)
	}
	var items []string
	for i := range 500 {
		items = append(items, fmt.Sprintf(`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"thing-%05d","namespace":"bench","uid":"3f1c7a9e-1d2b-4c5e-8f00-%012d","resourceVersion":"%d","generation":1,"creationTimestamp":"2026-01-02T03:04:05Z","labels":{"tier":"front"},
			"managedFields":[{"manager":"kubectl-client-side-apply","operation":"Update","apiVersion":"example.com/v1","time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:labels":{".":{},"f:tier":{}}},"f:spec":{".":{},"f:size":{},"f:note":{}}}}]},
			"spec":{"size":%d,"note":"a note\nwith two lines"},"status":{"conditions":[{"type":"Ready","status":"True"}]}}`, i, i, 1000+i, i))
	}
	data := []byte(`{"kind":"ThingList","apiVersion":"example.com/v1","metadata":{"resourceVersion":"42","continue":"next"},"items":[` + strings.Join(items, ",") + `]}`)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, ok, err := convertList(ctx, data, conv, &metav1.TableOptions{}); err != nil || !ok {
			b.Fatal(ok, err)
		}
	}
}
