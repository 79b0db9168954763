package cmd

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPoliciesBadInput: a policy the server would refuse, a param of a
// kind nothing serves, a policy kind the Kubernetes version does not
// serve are each one error at the file and line, before any object is
// checked; --policies with --no-policies is a usage error.
func TestPoliciesBadInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	object := write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {x: '1'}\n")
	rules := "  matchConstraints:\n    resourceRules:\n    - {apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}\n"
	for _, tc := range []struct {
		name, policies string
		extra          []string
		want           string
	}{
		{"does not compile", "# a comment\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: broken}\nspec:\n" + rules + "  validations:\n  - expression: 'object.data.x =='\n",
			nil, `:10:5: ValidatingAdmissionPolicy "broken" cannot be created: spec.validations[0].expression: Invalid value: "object.data.x ==": compilation failed`},
		{"param of no kind", "apiVersion: example.com/v1\nkind: Nothing\nmetadata: {name: n, namespace: default}\n",
			nil, `:1:1: no matches for kind "Nothing" in version "example.com/v1"`},
		{"not served", "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: m}\nspec:\n" + rules + "  mutations: []\n",
			[]string{"--kubernetes-version", "1.35"}, `(Kubernetes 1.35 does not serve it)`},
		{"both flags", "", []string{"--no-policies"}, "--policies and --no-policies cannot be used together"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, out, _ := testFactory(t)
			policies := filepath.Join(dir, "missing.yaml")
			if tc.policies != "" {
				policies = write(strings.ReplaceAll(tc.name, " ", "-")+".yaml", tc.policies)
			}
			err := execute(f, append([]string{"validate", "--offline", "-f", object, "--policies", policies}, tc.extra...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one with %q", err, tc.want)
			}
			if out.Len() > 0 {
				t.Errorf("objects were checked: %s", out)
			}
		})
	}
}

// TestSuitesSeeAdmission: with --policies, a suite's create is answered
// through the policies (examples/policies: a CronTab names its team), so
// expectedError matches the denial, and the same suite without
// --policies fails that case (the object is accepted).
func TestSuitesSeeAdmission(t *testing.T) {
	suite := filepath.Join(t.TempDir(), "admission.testsuite.yaml")
	content := `name: CronTab admission
crdName: crontabs.stable.example.com
tests:
  onCreate:
  - name: a CronTab without its team is denied
    initial: |
      apiVersion: stable.example.com/v1
      kind: CronTab
      spec: {image: registry.example.com/x:1, replicas: 1}
    expectedError: "ValidatingAdmissionPolicy 'crontab-limits' with binding 'crontab-limits' denied request: a CronTab names its team in the label team"
  - name: with its team it is created
    initial: |
      apiVersion: stable.example.com/v1
      kind: CronTab
      metadata: {labels: {team: batch}}
      spec: {image: registry.example.com/x:1, replicas: 1}
    expected: |
      apiVersion: stable.example.com/v1
      kind: CronTab
      metadata: {labels: {team: batch}}
      spec: {image: registry.example.com/x:1, replicas: 1, cronSpec: "5 0 * * *", minReplicas: 0}
`
	if err := os.WriteFile(suite, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	crds := filepath.Join("..", "..", "examples", "crds")
	f, out, _ := testFactory(t)
	if err := execute(f, "test", suite, "--crds", crds, "--policies", filepath.Join("..", "..", "examples", "policies")); err != nil {
		t.Fatalf("with --policies: %v\n%s", err, out)
	}
	f, out, _ = testFactory(t)
	err := execute(f, "test", suite, "--crds", crds)
	if err == nil || !strings.Contains(out.String(), "a CronTab without its team is denied") {
		t.Fatalf("without --policies the denial case must fail: %v\n%s", err, out)
	}
}

// TestBindingOfNoPolicy: a binding that names a policy not given does
// nothing, as on the server; validate says so once, at the binding's
// policyName, and checks on (and says nothing of the namespace default,
// which every cluster has as it is made up).
func TestBindingOfNoPolicy(t *testing.T) {
	binding := filepath.Join(t.TempDir(), "binding.yaml")
	if err := os.WriteFile(binding, []byte("apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicyBinding\nmetadata: {name: b}\nspec: {policyName: crontab-limitz, validationActions: [Deny]}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, _, errOut := testFactory(t)
	err := execute(f, "validate", "--offline", "--crds", filepath.Join("..", "..", "examples", "crds"),
		"-f", filepath.Join("..", "..", "examples", "objects", "valid"), "--policies", filepath.Join("..", "..", "examples", "policies"), "--policies", binding)
	if err == nil {
		t.Fatal("the example policies deny two of the valid CronTabs")
	}
	want := `Warning: ` + binding + `:4:8: spec.policyName: ValidatingAdmissionPolicy "crontab-limitz" is not given: the binding does nothing`
	if strings.Count(errOut.String(), want) != 1 || strings.Count(errOut.String(), "Warning:") != 1 {
		t.Errorf("stderr:\n%s\nwant once: %s", errOut, want)
	}
}

// TestMutationsNamePolicies: -o json names each mutating policy that
// changed the object with its part of the patch; a policy that matched
// and changed nothing is not named; a policy reinvoked after a later
// change is named again with what it changed then.
func TestMutationsNamePolicies(t *testing.T) {
	dir := t.TempDir()
	object := filepath.Join(dir, "cm.yaml")
	if err := os.WriteFile(object, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: default, labels: {app: a}}\ndata: {x: '1'}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	policy := func(name, patch string) string {
		return "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicy\nmetadata: {name: " + name + "}\nspec:\n" +
			"  matchConstraints:\n    resourceRules:\n    - {apiGroups: [''], apiVersions: [v1], operations: [CREATE], resources: [configmaps]}\n" +
			"  reinvocationPolicy: IfNeeded\n  mutations:\n  - patchType: JSONPatch\n    jsonPatch:\n      expression: '" + patch + "'\n---\n" +
			"apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingAdmissionPolicyBinding\nmetadata: {name: " + name + "}\nspec: {policyName: " + name + "}\n---\n"
	}
	set := filepath.Join(dir, "policies.yaml")
	content := policy("team", `[JSONPatch{op: "add", path: "/metadata/labels/team", value: "blue"}]`) +
		policy("stamp", `[JSONPatch{op: "add", path: "/data/stamp", value: "team" in object.metadata.labels ? object.metadata.labels.team : "none"}]`) +
		policy("same", `[JSONPatch{op: "replace", path: "/metadata/labels/app", value: "a"}]`)
	if err := os.WriteFile(set, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	f, out, _ := testFactory(t)
	if err := execute(f, "validate", "--offline", "-f", object, "--policies", set, "-o", "json"); err != nil {
		t.Fatal(err)
	}
	var report struct {
		Results []struct {
			Mutation  json.RawMessage
			Mutations []struct {
				Policy string
				Patch  json.RawMessage
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &report); err != nil || len(report.Results) != 1 {
		t.Fatalf("%v: %s", err, out)
	}
	got := report.Results[0]
	compact := func(js json.RawMessage) string {
		var b bytes.Buffer
		if err := json.Compact(&b, js); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if compact(got.Mutation) != `{"data":{"stamp":"blue"},"metadata":{"labels":{"team":"blue"}}}` {
		t.Errorf("mutation %s", got.Mutation)
	}
	var named []string
	for _, m := range got.Mutations {
		named = append(named, m.Policy+" "+compact(m.Patch))
	}
	// stamp runs first (by name) and finds no team; team's change has
	// stamp run again (IfNeeded), as the server reinvokes it.
	want := []string{`stamp {"data":{"stamp":"none"}}`, `team {"metadata":{"labels":{"team":"blue"}}}`, `stamp {"data":{"stamp":"blue"}}`}
	if strings.Join(named, "\n") != strings.Join(want, "\n") {
		t.Errorf("mutations:\n%s\nwant:\n%s", strings.Join(named, "\n"), strings.Join(want, "\n"))
	}
}
