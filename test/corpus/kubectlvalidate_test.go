package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
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
func TestKubectlValidate(t *testing.T) {
	needCorpus(t)
	kubectlValidate := installKubectlValidate(t)
	schemas := t.TempDir()
	if r := bin.Run(t, "kubectl-crd", nil, "openapi", "--layout", "kubectl-validate", "--output-dir", schemas); r.Code != 0 {
		t.Fatalf("openapi --layout kubectl-validate: exit %d\n%s", r.Code, r.Stderr)
	}
	published := serverDocuments(t)

	dir := t.TempDir()
	source := map[string]*manifest.Document{}
	write := func(prefix string, docs []manifest.Document) []string {
		var files []string
		for i, d := range docs {
			f := filepath.Join(dir, fmt.Sprintf("%s-%04d.json", prefix, i))
			if err := os.WriteFile(f, d.JSON, 0o644); err != nil {
				t.Fatal(err)
			}
			source[f] = &docs[i]
			files = append(files, f)
		}
		return files
	}
	acceptedFiles, refusedFiles := write("accepted", accepted), write("refused", refused)
	files := append(slices.Clone(acceptedFiles), refusedFiles...)
	verdicts := runKubectlValidate(t, kubectlValidate, files, schemas)
	fromServer := runKubectlValidate(t, kubectlValidate, files, published)
	for _, f := range files {
		if got, want := verdicts[f], fromServer[f]; !reflect.DeepEqual(withoutOrder(got), withoutOrder(want)) {
			t.Errorf("%s: from kubectl crd's documents kubectl-validate says %s; from the server's, %s", source[f].Pos(), describeStatus(got), describeStatus(want))
		}
	}

	passed, unchecked := 0, map[string]int{}
	for _, f := range acceptedFiles {
		switch v := verdicts[f]; {
		case v.Status == metav1.StatusSuccess:
			passed++
		case v.Reason == metav1.StatusReasonInternalError:
			unchecked[v.Message]++
		default:
			t.Errorf("the server created %s; kubectl-validate says %s", source[f].Pos(), describeStatus(v))
		}
	}
	reasons := serverReasons(t, refusedFiles)
	var caught, beyond int
	var missed []string
	for _, f := range refusedFiles {
		v := verdicts[f]
		schemaReason := false
		for _, e := range reasons[f] {
			schemaReason = schemaReason || jsonSchemaCanSay(e)
		}
		switch {
		case v.Status == metav1.StatusFailure && v.Reason == metav1.StatusReasonInvalid:
			caught++
		case schemaReason && v.Status == metav1.StatusSuccess:
			missed = append(missed, fmt.Sprintf("%s: %v", source[f].Pos(), reasons[f]))
		default:
			beyond++
		}
	}
	sort.Strings(missed)
	for _, m := range missed {
		t.Errorf("the server refused it for a reason the schema states; kubectl-validate passed it: %s", m)
	}
	t.Logf("kubectl-validate: %d of %d objects the server created pass, %d it cannot check (%v); of the %d the server refused, %d fail in kubectl-validate too, %d were refused for what it does not check or could not be checked",
		passed, len(acceptedFiles), len(acceptedFiles)-passed, unchecked, len(refusedFiles), caught, beyond)
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

// installKubectlValidate builds kubectl-validate v0.0.4 from the module
// proxy.
func installKubectlValidate(t *testing.T) string {
	t.Helper()
	gobin := t.TempDir()
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), "install", "sigs.k8s.io/kubectl-validate@v0.0.4")
	cmd.Dir = gobin
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("installing kubectl-validate from the module proxy: %v\n%s", err, out)
	}
	return filepath.Join(gobin, "kubectl-validate")
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
