package e2e

import (
	"regexp"
	"strings"
	"testing"
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
	{"samples", "--chunk-size", "1", "-A"},
	{"samples", "-o", "custom-columns=NAME:.metadata.name,COUNT:.spec.count", "-A"},
	{"samples", "-o", "jsonpath={.items[*].spec.color}", "-A"},
}

// TestGetMatchesKubectl compares kubectl crd get with kubectl get
// (server-side Tables) for each case: stdout, stderr and exit code.
func TestGetMatchesKubectl(t *testing.T) {
	for _, args := range getCases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			want := runBinary(t, "kubectl", nil, append([]string{"get"}, args...)...)
			got := runBinary(t, "kubectl-crd", nil, append([]string{"get"}, args...)...)
			compareOutputs(t, got, want)
		})
	}
}

// TestGetBuildsTablesOnTheClient checks that kubectl crd get never asks
// the server for a Table of a custom resource.
func TestGetBuildsTablesOnTheClient(t *testing.T) {
	testCluster.ResetRequests()
	r := runBinary(t, "kubectl-crd", nil, "get", "samples,clusterthings,crontabs", "-A", "-o", "wide")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
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
			online := runBinary(t, "kubectl-crd", nil, args...)
			offlineArgs := append(args, "--crds", crdDirs[0], "--crds", crdDirs[1])
			offline := runBinary(t, "kubectl-crd", []string{"KUBECONFIG="}, offlineArgs...)
			// Objects read from files have no creation time yet.
			compareOutputs(t, withoutAges(offline), withoutAges(online))
		})
	}
}

var ageCell = regexp.MustCompile(`\b(\d+[smhdy])+\b`)

// normalize makes outputs comparable across seconds: ages become "AGE"
// and runs of blanks (whose width depends on the ages) one blank.
func normalize(s string) string {
	s = ageCell.ReplaceAllString(s, "AGE")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// withoutAges drops every age cell.
func withoutAges(r result) result {
	r.stdout = ageCell.ReplaceAllString(r.stdout, "")
	return r
}

func compareOutputs(t *testing.T, got, want result) {
	t.Helper()
	if got.code != want.code {
		t.Errorf("exit %d, kubectl exit %d", got.code, want.code)
	}
	if normalize(got.stdout) != normalize(want.stdout) {
		t.Errorf("stdout:\n%s\nkubectl's stdout:\n%s", got.stdout, want.stdout)
	}
	if normalize(got.stderr) != normalize(want.stderr) {
		t.Errorf("stderr:\n%s\nkubectl's stderr:\n%s", got.stderr, want.stderr)
	}
}
