package e2e

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// TestGetWatch watches samples while one is created and another updated,
// and expects a row for each change with the CRD's columns.
func TestGetWatch(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(bin.Dir, "kubectl-crd"), "get", "samples", "-w", "-n", "watched")
	cmd.Env = []string{"KUBECONFIG=" + testCluster.Kubeconfig, "HOME=" + t.TempDir()}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	lines := make(chan string)
	go func() {
		s := bufio.NewScanner(stdout)
		for s.Scan() {
			lines <- s.Text()
		}
		close(lines)
	}()
	expect := func(prefix string) string {
		t.Helper()
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("the watch ended before %q; stderr: %s", prefix, stderr.String())
				}
				if strings.HasPrefix(l, prefix) {
					return l
				}
			case <-ctx.Done():
				t.Fatalf("no line starting %q; stderr: %s", prefix, stderr.String())
			}
		}
	}

	client, err := dynamic.NewForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	samples := client.Resource(schema.GroupVersionResource{Group: "printing.example.com", Version: "v1", Resource: "samples"}).Namespace("watched")
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "printing.example.com/v1", "kind": "Sample",
		"metadata": map[string]any{"name": "first", "namespace": "watched"},
		"spec":     map[string]any{"color": "teal", "count": int64(1)},
	}}
	if _, err := samples.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	header := expect("NAME")
	if !strings.Contains(header, "COLOR") || !strings.Contains(header, "COUNT") {
		t.Errorf("header %q lacks the CRD's columns", header)
	}
	if l := strings.Fields(expect("first ")); l[1] != "teal" || l[2] != "1" {
		t.Errorf("created row %q", l)
	}

	obj.Object["spec"] = map[string]any{"color": "navy", "count": int64(2)}
	got, err := samples.Get(ctx, "first", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	obj.SetResourceVersion(got.GetResourceVersion())
	if _, err := samples.Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if l := strings.Fields(expect("first ")); l[1] != "navy" || l[2] != "2" {
		t.Errorf("updated row %q", l)
	}
}
