package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// TestGetCellsWithTabsMatchKubectl: string cells holding tabs are printed
// as kubectl prints them (its tab writer takes a tab in a cell as a column
// break), and those holding terminal control characters (escaped before
// the columns are measured), also where a string column's path is a list
// of objects, in the forms that lay rows out differently: wide, pages of
// one, several types, sorted, without headers.
func TestGetCellsWithTabsMatchKubectl(t *testing.T) {
	ctx := context.Background()
	client := dynamic.NewForConfigOrDie(testCluster.Config).Resource(schema.GroupVersionResource{Group: "printing.example.com", Version: "v1", Resource: "samples"}).Namespace("get-tabs")
	for _, n := range []struct{ name, note string }{{"t1", "tab\there"}, {"t2", "plain"}, {"t3", "a\tb\tc"}, {"t4", "esc\x1b[31mred"}, {"t5", "line\nbreak\r\fx"}} {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "printing.example.com/v1", "kind": "Sample",
			"metadata": map[string]any{"name": n.name, "namespace": "get-tabs"}, "spec": map[string]any{"note": n.note, "color": "red",
				// Whole (-o wide) is a string column over a list of objects.
				"items": []any{map[string]any{"name": n.note}}}}}
		if n.name == "t5" {
			// ... and over an object.
			obj.Object["spec"].(map[string]any)["items"] = map[string]any{"name": "esc\x1b[31mred", "n": int64(1)}
		}
		if _, err := client.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = client.Delete(ctx, n.name, metav1.DeleteOptions{}) })
	}
	for _, args := range [][]string{{"get", "samples", "-n", "get-tabs"}, {"get", "samples", "-n", "get-tabs", "-o", "wide"},
		{"get", "samples", "-n", "get-tabs", "--chunk-size", "1"}, {"get", "samples,crontabs", "-A"},
		{"get", "samples", "-n", "get-tabs", "--sort-by", ".spec.note"}, {"get", "samples", "-n", "get-tabs", "--no-headers"}} {
		want := bin.Run(t, "kubectl", nil, args...)
		got := bin.Run(t, "kubectl-crd", nil, args...)
		if !strings.Contains(want.Stdout, "tab") || !strings.Contains(want.Stdout, "esc^[[31mred") {
			t.Fatalf("%v: kubectl printed no row with a tab or an escape:\n%s%s", args, want.Stdout, want.Stderr)
		}
		harness.Compare(t, got, want)
	}
}
