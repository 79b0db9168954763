package policytest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/crdtest"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
)

// kyverno is the project's Kyverno Test files, held to kube-apiserver
// by test/e2e.
var kyverno = filepath.Join("..", "..", "test", "testdata", "kyverno")

func runner(t testing.TB) *Runner {
	t.Helper()
	files, err := catalog.ReadFiles([]string{filepath.Join(kyverno, "crds.yaml")}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	env, err := validate.NewEnvironment(validate.Setting{Catalog: catalog.New(files, nil)})
	if err != nil {
		t.Fatal(err)
	}
	return &Runner{Env: env, User: policies.User()}
}

func run(t testing.TB, paths ...string) ([]crdtest.Result, []string, []*Test) {
	t.Helper()
	docs, err := manifest.ReadPaths(paths, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := Tests(docs, paths, "")
	results, notes := runner(t).Run(context.Background(), tests)
	return results, notes, tests
}

// TestTheProjectsTests: every result of the project's Test files passes
// (they are the server's answers), the Tests running together; the
// Kyverno-only Test is said to be skipped, and counted as given.
func TestTheProjectsTests(t *testing.T) {
	results, notes, tests := run(t, kyverno)
	passed := 0
	for _, r := range results {
		if r.Status != crdtest.Passed {
			t.Errorf("%s:%d %s: %s %s", r.File, r.Line, r.Name, r.Status, r.Message)
		}
		passed++
	}
	given := Given(tests)
	if passed == 0 || given.Cases != passed+1 || given.Suites != len(tests) {
		t.Errorf("%d passed, given %+v of %d Tests", passed, given, len(tests))
	}
	if len(notes) != 1 || !strings.Contains(notes[0], `Test "require-team": skipped: its results are of Kyverno's own policies (require-team)`) {
		t.Errorf("notes: %q", notes)
	}
}

// TestNamedFileAndFileName: a directory runs its kyverno-test.yaml files
// only; a file named runs whatever its name.
func TestNamedFileAndFileName(t *testing.T) {
	dir := t.TempDir()
	test := "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: x}\nresults: []\n"
	for _, name := range []string{"kyverno-test.yaml", "other.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(test), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := manifest.ReadPaths([]string{dir}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := Tests(docs, []string{dir}, ""); len(got) != 1 || filepath.Base(got[0].File) != "kyverno-test.yaml" {
		t.Errorf("a directory: %d Tests", len(got))
	}
	if got := Tests(docs, []string{dir}, "other.yaml"); len(got) != 1 || filepath.Base(got[0].File) != "other.yaml" {
		t.Errorf("--file-name other.yaml: %d Tests", len(got))
	}
	named := filepath.Join(dir, "other.yaml")
	docs, err = manifest.ReadPaths([]string{named}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := Tests(docs, []string{named}, ""); len(got) != 1 {
		t.Errorf("a file named: %d Tests", len(got))
	}
}

// TestBadInput: what cannot be run is an error of its result (or of the
// whole Test), at its file and line, never a pass.
func TestBadInput(t *testing.T) {
	policy := func(expression string) string {
		return `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "` + expression + `"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: p}
spec: {policyName: p, validationActions: [Deny]}
`
	}
	const configMap = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {a: b}\n"
	const widget = "apiVersion: t77.example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: big}\n"
	result := func(extra string) string {
		return "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: bad}\npolicies: [policy.yaml]\nresources: [resources.yaml]\nresults:\n- policy: p\n  kind: ConfigMap\n  resources: [cm]\n  result: pass\n" + extra
	}
	for _, tt := range []struct {
		name                    string
		test, policy, resources string
		want                    []string // in the message
		wholeTest               bool
	}{
		{"missing policy file", strings.Replace(result(""), "policy.yaml", "missing.yaml", 1), "", configMap,
			[]string{"missing.yaml", "no such file"}, true},
		{"misspelt key", result("  expectedResult: pass\n"), policy("true"), configMap,
			[]string{"kyverno-test.yaml:11:3", `unknown field "expectedResult"`}, true},
		{"policy that does not compile", result(""), policy("object.nope("), configMap,
			[]string{"policy.yaml:9", "compil"}, true},
		{"unknown policy", strings.Replace(result(""), "- policy: p", "- policy: q", 1), policy("true"), configMap,
			[]string{`no ValidatingAdmissionPolicy or MutatingAdmissionPolicy "q"`}, false},
		{"missing resource", strings.Replace(result(""), "[cm]", "[gone]", 1), policy("true"), configMap,
			[]string{"no resource gone of kind ConfigMap"}, false},
		{"an answer the server does not give", strings.Replace(result(""), "result: pass", "result: warn", 1), policy("true"), configMap,
			[]string{`result "warn"`}, false},
		{"an object the server refuses itself", strings.Replace(result(""), "kind: ConfigMap\n  resources: [cm]", "kind: Widget\n  resources: [w]", 1), policy("true"), widget,
			[]string{"the server refuses the object before the policy's answer", "spec.size"}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"kyverno-test.yaml": tt.test, "resources.yaml": tt.resources}
			if tt.policy != "" {
				files["policy.yaml"] = tt.policy
			}
			for name, text := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			results, _, _ := run(t, dir)
			if len(results) != 1 {
				t.Fatalf("%d results: %+v", len(results), results)
			}
			r := results[0]
			if r.Status != crdtest.Errored || (r.Kind == "") != tt.wholeTest {
				t.Errorf("status %s, kind %q: %s", r.Status, r.Kind, r.Message)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.Message, w) {
					t.Errorf("message %q lacks %q", r.Message, w)
				}
			}
		})
	}
}

// TestMessage: a result's message must be in the server's message for
// it: the denial's, or the warning of a Warn binding.
func TestMessage(t *testing.T) {
	policy := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "!has(object.data) || !('bad' in object.data)"
    message: "no key named bad"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: p}
spec: {policyName: p, validationActions: [ACTION]}
`
	objects := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm}\ndata: {bad: x}\n"
	for _, tt := range []struct {
		action, result, message string
		want                    string
	}{
		{"Deny", "fail", "no key named bad", crdtest.Passed},
		{"Deny", "fail", "named", crdtest.Passed},
		{"Deny", "fail", "no key named good", crdtest.Failed},
		{"Warn", "pass", "no key named bad", crdtest.Passed},
		{"Warn", "pass", "something else", crdtest.Failed},
	} {
		dir := t.TempDir()
		files := map[string]string{
			"policy.yaml":    strings.Replace(policy, "ACTION", tt.action, 1),
			"resources.yaml": objects,
			"kyverno-test.yaml": "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: m}\npolicies: [policy.yaml]\nresources: [resources.yaml]\nresults:\n" +
				fmt.Sprintf("- {policy: p, kind: ConfigMap, resources: [cm], result: %s, message: %q}\n", tt.result, tt.message),
		}
		for name, text := range files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		results, _, _ := run(t, dir)
		if len(results) != 1 || results[0].Status != tt.want {
			t.Errorf("%s, %s, message %q: %+v, want %s", tt.action, tt.result, tt.message, results, tt.want)
		} else if tt.want == crdtest.Failed && !strings.Contains(results[0].Message, "no key named bad") {
			t.Errorf("%s, message %q: the failure does not show the server's message: %s", tt.action, tt.message, results[0].Message)
		}
	}
}

func TestResolve(t *testing.T) {
	for _, tt := range []struct{ test, path, want string }{
		{filepath.Join("tests", "a", "kyverno-test.yaml"), "policy.yaml", filepath.Join("tests", "a", "policy.yaml")},
		{filepath.Join("tests", "a", "kyverno-test.yaml"), "../shared/p.yaml", filepath.Join("tests", "shared", "p.yaml")},
		{"git:main:tests/a/kyverno-test.yaml", "policy.yaml", "git:main:tests/a/policy.yaml"},
		{"https://example.com/t/a/kyverno-test.yaml", "policy.yaml", "https://example.com/t/a/policy.yaml"},
		{"tests/kyverno-test.yaml", "https://example.com/p.yaml", "https://example.com/p.yaml"},
	} {
		if got := resolve(tt.test, tt.path); got != tt.want {
			t.Errorf("resolve(%q, %q) = %q, want %q", tt.test, tt.path, got, tt.want)
		}
	}
}

// BenchmarkResults: a Test of 10 policies, each tested on 20 objects
// (200 results, half failing, half passing).
func BenchmarkResults(b *testing.B) {
	dir := b.TempDir()
	var policiesText, objects, results strings.Builder
	for p := range 10 {
		fmt.Fprintf(&policiesText, `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: p%d}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}
  validations:
  - expression: "!has(object.data) || !('k%d' in object.data)"
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: p%d}
spec: {policyName: p%d, validationActions: [Deny]}
---
`, p, p, p, p)
		var pass, fail []string
		for o := range 20 {
			name := fmt.Sprintf("cm-%d-%d", p, o)
			key := "other"
			if o%2 == 1 {
				key = fmt.Sprintf("k%d", p)
				fail = append(fail, name)
			} else {
				pass = append(pass, name)
			}
			fmt.Fprintf(&objects, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: %s}\ndata: {%s: v}\n---\n", name, key)
		}
		fmt.Fprintf(&results, "- {policy: p%d, kind: ConfigMap, resources: [%s], result: pass}\n", p, strings.Join(pass, ", "))
		fmt.Fprintf(&results, "- {policy: p%d, kind: ConfigMap, resources: [%s], result: fail}\n", p, strings.Join(fail, ", "))
	}
	files := map[string]string{"policies.yaml": policiesText.String(), "objects.yaml": objects.String(),
		"kyverno-test.yaml": "apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata: {name: bench}\npolicies: [policies.yaml]\nresources: [objects.yaml]\nresults:\n" + results.String()}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	r := runner(b)
	docs, err := manifest.ReadPaths([]string{dir}, true, nil)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		out, _ := r.Run(context.Background(), Tests(docs, []string{dir}, ""))
		if len(out) != 200 {
			b.Fatalf("%d results", len(out))
		}
		for _, c := range out {
			if c.Status != crdtest.Passed {
				b.Fatalf("%s: %s %s", c.Name, c.Status, c.Message)
			}
		}
	}
}
