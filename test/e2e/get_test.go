package e2e

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

// getCases are kubectl get command lines (without "get"), run by kubectl
// (built from k8s.io/kubectl, server-side printing) and by kubectl crd
// (client-side printing) against the same server.
var getCases = [][]string{
	{"samples"},
	{"samples", "-o", "wide"},
	{"samples", "-A"},
	{"samples", "-A", "-o", "wide"},
	{"samples", "-n", "other"},
	{"samples", "--show-labels"},
	{"samples", "-L", "tier,team"},
	{"samples", "--sort-by", ".spec.count", "-A"},
	{"samples", "--sort-by", ".metadata.name", "-o", "wide"},
	{"samples", "--no-headers", "-A"},
	{"samples", "-o", "name", "-A"},
	{"samples", "--show-kind"},
	{"samples", "-l", "tier=front", "-A"},
	{"samples", "--field-selector", "metadata.name=beta"},
	{"samples", "--field-selector", "spec.color=green", "-A"},
	{"samples", "alpha", "beta"},
	{"samples/alpha", "widgets/w1"},
	{"smp", "nosuch"},
	{"samples", "nosuch", "--ignore-not-found"},
	{"samples.v1beta1.printing.example.com", "-A"},
	{"samples,clusterthings", "-A"},
	{"toys", "-A"},
	{"all", "-A"},
	{"clusterthings", "-o", "wide"},
	{"crontabs", "-o", "wide"},
	{"gizmos"},
	{"features", "-o", "wide"},
	{"samples", "--chunk-size", "1", "-A"},
	{"samples", "-o", "custom-columns=NAME:.metadata.name,COUNT:.spec.count", "-A"},
	{"samples", "-o", "jsonpath={.items[*].spec.color}", "-A"},
}

// TestGetMatchesKubectl compares kubectl crd get with kubectl get
// (server-side Tables) for each case: stdout, stderr and exit code. A
// category names its custom resources for kubectl crd get: kubectl gets
// those.
func TestGetMatchesKubectl(t *testing.T) {
	for _, args := range getCases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			kubectlArgs := args
			if hasCategory(args[0]) {
				kubectlArgs = append([]string{categoryTypes(t, args[0])}, args[1:]...)
			}
			want := bin.Run(t, "kubectl", nil, append([]string{"get"}, kubectlArgs...)...)
			got := bin.Run(t, "kubectl-crd", nil, append([]string{"get"}, args...)...)
			harness.Compare(t, got, want)
		})
	}
}

// TestGetBuildsTablesOnTheClient checks that kubectl crd get never asks
// the server for a Table of a custom resource.
func TestGetBuildsTablesOnTheClient(t *testing.T) {
	testCluster.ResetRequests()
	r := bin.Run(t, "kubectl-crd", nil, "get", "samples,clusterthings,crontabs", "-A", "-o", "wide")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	lists := 0
	for _, req := range testCluster.Requests() {
		if strings.Contains(req.Accept, "as=Table") {
			t.Errorf("asked the server for a Table: %s %s", req.Method, req.Path)
		}
		for _, plural := range []string{"/samples", "/clusterthings", "/crontabs"} {
			if strings.HasSuffix(req.Path, plural) {
				lists++
			}
		}
	}
	if lists != 3 {
		t.Errorf("%d list requests, want 3", lists)
	}
}

// TestOfflineGetMatchesOnline prints local objects with CRDs from files and
// the same objects from the cluster.
func TestOfflineGetMatchesOnline(t *testing.T) {
	for _, extra := range [][]string{nil, {"-o", "wide"}, {"--show-labels", "--show-kind"}, {"-o", "name"}} {
		t.Run(strings.Join(extra, " "), func(t *testing.T) {
			args := append([]string{"get", "-f", objectDir}, extra...)
			online := bin.Run(t, "kubectl-crd", nil, args...)
			offlineArgs := append(args, "--crds", crdDirs[0], "--crds", crdDirs[1])
			offline := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, offlineArgs...)
			// Objects read from files have no creation time yet.
			harness.Compare(t, harness.WithoutAges(offline), harness.WithoutAges(online))
		})
	}
}

// TestGetFallsBackToServerTablesWhenCRDsAreForbidden answers 403 to every
// CRD read: kubectl crd get then asks the server for the Table, prints what
// kubectl prints, and says so at -v=2.
func TestGetFallsBackToServerTablesWhenCRDsAreForbidden(t *testing.T) {
	testCluster.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasPrefix(r.URL.Path, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions") {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"customresourcedefinitions.apiextensions.k8s.io is forbidden"}`)
		return true
	})
	defer testCluster.SetHook(nil)

	want := bin.Run(t, "kubectl", nil, "get", "samples", "-A", "-o", "wide")
	got := bin.Run(t, "kubectl-crd", nil, "get", "samples", "-A", "-o", "wide")
	harness.Compare(t, got, want)

	r := bin.Run(t, "kubectl-crd", nil, "get", "samples", "-v=2")
	if r.Code != 0 || !strings.Contains(r.Stderr, "Cannot read the CustomResourceDefinition") {
		t.Errorf("exit %d; -v=2 does not say the CRD could not be read:\n%s", r.Code, r.Stderr)
	}
}

// TestGetFileMatchesKubectl: get -f with selectors, --sort-by and an
// object that has only generateName answers as kubectl get -f does with
// the same file against the cluster, online and offline (ages aside).
func TestGetFileMatchesKubectl(t *testing.T) {
	samples, err := readFile(filepath.Join(objectDir, "samples.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "samples.yaml")
	generated := "\n---\napiVersion: printing.example.com/v1\nkind: Sample\nmetadata: {generateName: gen-, namespace: default}\nspec: {color: red, count: 1}\n"
	writeFile(t, file, string(samples)+generated)
	// A directory where one file holds a version the CRD does not serve:
	// kubectl prints every object it can, then the error for that one.
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a-samples.yaml"), string(samples))
	writeFile(t, filepath.Join(dir, "b-unserved.yaml"), "apiVersion: printing.example.com/v9\nkind: Sample\nmetadata: {name: nine, namespace: default}\nspec: {color: red, count: 9}\n")
	for _, tc := range []struct {
		input string
		extra []string
	}{{file, nil}, {file, []string{"-l", "tier=front"}}, {file, []string{"-l", "tier=nosuch"}}, {file, []string{"--field-selector", "spec.color=blue"}},
		{file, []string{"--sort-by", ".spec.count"}}, {file, []string{"-o", "name"}}, {dir, nil}, {dir, []string{"-o", "name"}}} {
		extra := tc.extra
		t.Run(filepath.Base(tc.input)+" "+strings.Join(extra, " "), func(t *testing.T) {
			args := append([]string{"get", "-f", tc.input}, extra...)
			want := bin.Run(t, "kubectl", nil, args...)
			got := bin.Run(t, "kubectl-crd", nil, args...)
			harness.Compare(t, got, want)
			offline := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, append(args, "--crds", crdDirs[0], "--crds", crdDirs[1])...)
			harness.Compare(t, harness.WithoutAges(offline), harness.WithoutAges(got))
			t.Logf("kubectl get -f %s:\n%s%s", strings.Join(extra, " "), want.Stdout, want.Stderr)
		})
	}
}
