package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
)

// TestKubectlValidate is a consumer's test of openapi --layout
// kubectl-validate: the real kubectl-validate v0.0.4, installed from the
// module proxy, reads the OpenAPI v3 documents kubectl crd builds from the
// test cluster's CRDs with --local-schemas and checks the corpus's
// examples. Its verdict on every object must be the one it gives with the
// documents the server itself publishes at /openapi/v3, laid out the same
// way. Against the server's own verdicts: every object the server created
// passes, but for those kubectl-validate cannot check (it ends in an
// internal error, such as on an object with generateName); every object
// the server refused for a reason the schema states fails. kubectl-validate
// runs CEL rules as well, so it catches more of the refusals than a JSON
// Schema does: the counts are logged.
//
// It runs with KUBECTL_CRD_PEERS=1 (before a release, see
// docs/releases.md): building kubectl-validate compiles its own copy of
// the Kubernetes modules (older versions of ours), which took several
// minutes of a cold CI run on two cores.
func TestKubectlValidate(t *testing.T) {
	needCorpus(t)
	if os.Getenv("KUBECTL_CRD_PEERS") != "1" {
		t.Skip("builds kubectl-validate from the module proxy: set KUBECTL_CRD_PEERS=1")
	}
	kubectlValidate := goInstall(t, "sigs.k8s.io/kubectl-validate@v0.0.4")
	schemas := t.TempDir()
	if r := bin.Run(t, "kubectl-crd", nil, "openapi", "--layout", "kubectl-validate", "--output-dir", schemas); r.Code != 0 {
		t.Fatalf("openapi --layout kubectl-validate: exit %d\n%s", r.Code, r.Stderr)
	}
	published := serverDocuments(t)

	objs := writeObjectFiles(t)
	files, source := objs.all(), objs.source
	verdicts := runKubectlValidate(t, kubectlValidate, files, schemas)
	fromServer := runKubectlValidate(t, kubectlValidate, files, published)
	for _, f := range files {
		if got, want := verdicts[f], fromServer[f]; !reflect.DeepEqual(withoutOrder(got), withoutOrder(want)) {
			t.Errorf("%s: from kubectl crd's documents kubectl-validate says %s; from the server's, %s", source[f].Pos(), describeStatus(got), describeStatus(want))
		}
	}

	passed, unchecked := 0, map[string]int{}
	for _, f := range objs.accepted {
		switch v := verdicts[f]; {
		case v.Status == metav1.StatusSuccess:
			passed++
		case v.Reason == metav1.StatusReasonInternalError:
			unchecked[v.Message]++
		default:
			t.Errorf("the server created %s; kubectl-validate says %s", source[f].Pos(), describeStatus(v))
		}
	}
	caught, beyond := objs.judgeRefusals(t, "kubectl-validate", func(f string) (bool, bool) {
		v := verdicts[f]
		return v.Status == metav1.StatusFailure && v.Reason == metav1.StatusReasonInvalid, v.Status == metav1.StatusSuccess
	})
	t.Logf("kubectl-validate: %d of %d objects the server created pass, %d it cannot check (%v); of the %d the server refused, %d fail in kubectl-validate too, %d were refused for what it does not check or could not be checked",
		passed, len(objs.accepted), len(objs.accepted)-passed, unchecked, len(objs.refused), caught, beyond)
}

// withoutOrder is a verdict without what changes from run to run:
// kubectl-validate lists the causes of an invalid object, and so words its
// message, in map order.
func withoutOrder(s metav1.Status) metav1.Status {
	if s.Details == nil {
		return s
	}
	s.Message = ""
	s.Details = s.Details.DeepCopy()
	slices.SortFunc(s.Details.Causes, func(a, b metav1.StatusCause) int {
		return strings.Compare(a.Field+"\x00"+a.Message, b.Field+"\x00"+b.Message)
	})
	return s
}

func describeStatus(s metav1.Status) string {
	switch s.Status {
	case "":
		return "nothing"
	case metav1.StatusSuccess:
		return "valid"
	}
	return fmt.Sprintf("%s: %s", s.Reason, s.Message)
}

// serverDocuments writes the OpenAPI v3 documents the test cluster
// publishes for its API groups to a directory, at the paths kubectl-validate's
// --local-schemas reads.
func serverDocuments(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	client, err := discovery.NewDiscoveryClientForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	paths, err := client.OpenAPIV3().Paths()
	if err != nil {
		t.Fatal(err)
	}
	for path, gv := range paths {
		if !strings.HasPrefix(path, "apis/") || strings.Count(path, "/") != 2 {
			continue // not a group version's document
		}
		data, err := gv.Schema("application/json")
		if err != nil {
			t.Fatalf("/openapi/v3/%s: %v", path, err)
		}
		file := filepath.Join(dir, filepath.FromSlash(path)+".json")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runKubectlValidate runs kubectl-validate -o json on the files with the
// documents of one --local-schemas directory and no cluster (KUBECONFIG
// names no file), and returns its verdict on each file (one document per
// file).
func runKubectlValidate(t *testing.T, kubectlValidate string, files []string, schemas string) map[string]metav1.Status {
	t.Helper()
	cmd := exec.Command(kubectlValidate, append([]string{"--local-schemas", schemas, "--version", "1.30", "-o", "json"}, files...)...)
	home := t.TempDir()
	cmd.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(home, "none"), "HOME="+home)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("kubectl-validate: %v\n%s", err, stderr.String())
	}
	var report map[string][]metav1.Status
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("kubectl-validate's report: %v\n%s", err, out)
	}
	verdicts := map[string]metav1.Status{}
	for f, statuses := range report {
		if len(statuses) == 1 {
			verdicts[f] = statuses[0]
		}
	}
	return verdicts
}
