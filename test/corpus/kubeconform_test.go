package corpus

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestKubeconform is a consumer's test of openapi -o jsonschema: the real
// kubeconform, installed from the module proxy, checks the corpus's
// examples against the schemas kubectl crd exports from the test cluster.
// Every object the server created must pass; every object the server
// refused for a reason a JSON Schema states (a type, an enum, a bound, a
// length, a pattern, a required or unknown field) must fail. The other
// refusals (CEL rules, metadata, formats) are counted.
func TestKubeconform(t *testing.T) {
	needCorpus(t)
	kubeconform := goInstall(t, "github.com/yannh/kubeconform/cmd/kubeconform@latest")
	schemas := t.TempDir()
	if r := bin.Run(t, "kubectl-crd", nil, "openapi", "-o", "jsonschema", "--output-dir", schemas); r.Code != 0 {
		t.Fatalf("openapi -o jsonschema: exit %d\n%s", r.Code, r.Stderr)
	}

	objs := writeObjectFiles(t)
	files, source := objs.all(), objs.source
	verdicts := runKubeconform(t, kubeconform, filepath.Join(schemas, "{{.Group}}", "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"), files)
	// The layout holds each schema for kubeconform's template without the
	// group too, and the vscode layout for the template with it.
	flat := runKubeconform(t, kubeconform, filepath.Join(schemas, "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"), files)
	vscode := t.TempDir()
	if r := bin.Run(t, "kubectl-crd", nil, "openapi", "--layout", "vscode", "--output-dir", vscode); r.Code != 0 {
		t.Fatalf("openapi --layout vscode: exit %d\n%s", r.Code, r.Stderr)
	}
	grouped := runKubeconform(t, kubeconform, filepath.Join(vscode, "{{.Group}}", "{{.ResourceKind}}_{{.ResourceAPIVersion}}.json"), files)
	// A kind and version that two groups serve (Gateway v1) has no schema
	// without the group, which kubeconform reports as an error.
	for _, f := range files {
		v, wantFlat := verdicts[f], verdicts[f].Status
		tm := source[f].TypeMeta()
		gv, _ := schema.ParseGroupVersion(tm.APIVersion)
		if _, err := os.Stat(filepath.Join(schemas, strings.ToLower(tm.Kind+"_"+gv.Version)+".json")); err != nil {
			wantFlat = "statusError"
		}
		if flat[f].Status != wantFlat || grouped[f].Status != v.Status {
			t.Errorf("%s: kubeconform says %s with the group in the path, %s without it (want %s), %s in the vscode layout", source[f].Pos(), v.Status, flat[f].Status, wantFlat, grouped[f].Status)
		}
	}

	passed := 0
	for _, f := range objs.accepted {
		if v := verdicts[f]; v.Status == "statusValid" {
			passed++
		} else {
			t.Errorf("the server created %s; kubeconform says %s: %s", source[f].Pos(), v.Status, v.Msg)
		}
	}
	caught, beyond := objs.judgeRefusals(t, "kubeconform", func(f string) (bool, bool) {
		return verdicts[f].Status == "statusInvalid", verdicts[f].Status != "statusInvalid"
	})
	t.Logf("kubeconform: %d of %d objects the server created pass; of the %d it refused, %d fail in kubeconform too, %d were refused for what JSON Schema cannot state (CEL, metadata, formats)",
		passed, len(objs.accepted), len(objs.refused), caught, beyond)
}

type kubeconformVerdict struct {
	Filename string `json:"filename"`
	Status   string `json:"status"`
	Msg      string `json:"msg"`
}

// runKubeconform runs kubeconform -strict on the files, reading schemas
// where the -schema-location template says, and returns its verdict on
// each file.
func runKubeconform(t *testing.T, kubeconform, location string, files []string) map[string]kubeconformVerdict {
	t.Helper()
	args := append([]string{"-strict", "-verbose", "-output", "json", "-schema-location", location}, files...)
	out, err := exec.Command(kubeconform, args...).Output()
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		t.Fatalf("kubeconform: %v\n%s", err, out)
	}
	var report struct {
		Resources []kubeconformVerdict `json:"resources"`
	}
	if err := json.Unmarshal(out, &report); err != nil {
		t.Fatalf("kubeconform's report: %v\n%s", err, out)
	}
	verdicts := map[string]kubeconformVerdict{}
	for _, r := range report.Resources {
		verdicts[r.Filename] = r
	}
	return verdicts
}

type serverError struct {
	Field, Type, Message string
}

// serverReasons are the causes the server gave when it refused each of
// the refused objects (their files, in the order of refused).
func serverReasons(t *testing.T, files []string) map[string][]serverError {
	t.Helper()
	out := map[string][]serverError{}
	for i, f := range files {
		var status *apierrors.StatusError
		if !errors.As(refusals[i], &status) || status.ErrStatus.Details == nil {
			out[f] = []serverError{{Message: refusals[i].Error()}}
			continue
		}
		for _, c := range status.ErrStatus.Details.Causes {
			out[f] = append(out[f], serverError{Field: c.Field, Type: string(c.Type), Message: c.Message})
		}
	}
	return out
}

// jsonSchemaCanSay tells whether a refusal is one a JSON Schema states:
// the OpenAPI schema's own checks (kube-openapi says "in body"), enums,
// types, required and unknown fields; not CEL rules, metadata or formats
// (kube-openapi says a format is a type: "must be of type ipv4"), nor
// allOf/anyOf/oneOf/not, which the server may refuse for a format below
// them.
func jsonSchemaCanSay(e serverError) bool {
	if strings.HasPrefix(e.Field, "metadata") || strings.Contains(e.Message, "must validate") || strings.Contains(e.Message, "must not validate") {
		return false
	}
	if _, typ, ok := strings.Cut(e.Message, "in body must be of type "); ok {
		typ, _, _ = strings.Cut(typ, ":")
		return slices.Contains([]string{"string", "integer", "number", "boolean", "object", "array"}, typ)
	}
	switch e.Type {
	case "FieldValueNotSupported", "FieldValueRequired", "FieldValueTooLong", "FieldValueTooMany":
		return true
	}
	return strings.Contains(e.Message, "unknown field") || strings.Contains(e.Message, " in body ")
}
