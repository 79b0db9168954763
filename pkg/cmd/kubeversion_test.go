package cmd

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
)

// TestClusterOutsideTheRange: online, a cluster whose /version is older
// than the oldest version kubectl crd answers as is an error that names the
// range and the version to pass, before anything is checked; and
// --kubernetes-version takes the place of the cluster's version, without
// asking it.
func TestClusterOutsideTheRange(t *testing.T) {
	var versions, others atomic.Int32
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/version" {
			versions.Add(1)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"major":"1","minor":"30","gitVersion":"v1.30.4"}`))
			return
		}
		others.Add(1)
		http.NotFound(w, r)
	}))
	defer server.Close()
	f, _, _ := testFactory(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	config := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: " + server.URL + "}}]\n" +
		"contexts: [{name: c, context: {cluster: c, user: u}}]\ncurrent-context: c\nusers: [{name: u, user: {}}]\n"
	if err := os.WriteFile(kubeconfig, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", kubeconfig)
	file := testdata("objects")
	oldest, _ := kubeversion.Range()
	err := execute(f, "validate", "-f", file)
	if err == nil || !strings.Contains(err.Error(), "the cluster runs Kubernetes 1.30") || !strings.Contains(err.Error(), "--kubernetes-version "+oldest.String()) {
		t.Errorf("validate against a 1.30 cluster: %v; want an error naming the range and the flag", err)
	}
	if versions.Load() != 1 || others.Load() != 0 {
		t.Errorf("%d requests for /version and %d others; want the version asked once and nothing else", versions.Load(), others.Load())
	}

	versions.Store(0)
	f, _, _ = testFactory(t)
	t.Setenv("KUBECONFIG", kubeconfig)
	err = execute(f, "--kubernetes-version", "1.20", "validate", "-f", file)
	if err == nil || !strings.Contains(err.Error(), "--kubernetes-version 1.20") {
		t.Errorf("--kubernetes-version 1.20: %v", err)
	}
	if versions.Load() != 0 {
		t.Errorf("/version asked %d times with --kubernetes-version given", versions.Load())
	}
}
