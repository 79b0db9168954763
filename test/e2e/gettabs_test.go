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
// break), in the forms that lay rows out differently: wide, pages of one,
// several types, sorted, without headers.
func TestGetCellsWithTabsMatchKubectl(t *testing.T) {
	ctx := context.Background()
	client := dynamic.NewForConfigOrDie(testCluster.Config).Resource(schema.GroupVersionResource{Group: "printing.example.com", Version: "v1", Resource: "samples"}).Namespace("get-tabs")
	for _, n := range []struct{ name, note string }{{"t1", "tab\there"}, {"t2", "plain"}, {"t3", "a\tb\tc"}} {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "printing.example.com/v1", "kind": "Sample",
			"metadata": map[string]any{"name": n.name, "namespace": "get-tabs"}, "spec": map[string]any{"note": n.note, "color": "red"}}}
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
		if !strings.Contains(want.Stdout, "tab") {
			t.Fatalf("%v: kubectl printed no row with a tab:\n%s%s", args, want.Stdout, want.Stderr)
		}
		harness.Compare(t, got, want)
	}
}
