package cmd

import (
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
			nil, `:2:1: ValidatingAdmissionPolicy "broken" cannot be created: spec.validations[0].expression: Invalid value: "object.data.x ==": compilation failed`},
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
