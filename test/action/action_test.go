// Package action runs the repository's GitHub Action (action.yml) on this
// machine as a runner runs a composite action: each step's script with
// bash, GITHUB_ACTION_PATH and RUNNER_TEMP set, and the step's env with the
// inputs put in.
package action

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

type action struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Branding    struct {
		Icon  string `json:"icon"`
		Color string `json:"color"`
	} `json:"branding"`
	Inputs map[string]struct {
		Description string `json:"description"`
		Required    bool   `json:"required"`
		Default     string `json:"default"`
	} `json:"inputs"`
	Runs struct {
		Using string `json:"using"`
		Steps []struct {
			Name  string            `json:"name"`
			Shell string            `json:"shell"`
			Env   map[string]string `json:"env"`
			Run   string            `json:"run"`
		} `json:"steps"`
	} `json:"runs"`
}

func TestAction(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a action
	if err := yaml.UnmarshalStrict(data, &a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using %q: the test runs composite actions", a.Runs.Using)
	}
	runnerTemp := t.TempDir()
	examples := filepath.Join(root, "examples")

	// run runs the action's steps with the inputs given, as a runner
	// would, in workDir (a new directory when ""), and returns the last
	// step's output and exit status.
	workDir := ""
	run := func(inputs map[string]string) (string, int) {
		t.Helper()
		var out bytes.Buffer
		for _, step := range a.Runs.Steps {
			if step.Shell != "bash" {
				t.Fatalf("step %q: shell %q, want bash", step.Name, step.Shell)
			}
			env := append(os.Environ(), "GITHUB_ACTION_PATH="+root, "RUNNER_TEMP="+runnerTemp, "KUBECONFIG="+filepath.Join(runnerTemp, "none"))
			for name, value := range step.Env {
				env = append(env, name+"="+substitute(t, value, a, inputs))
			}
			if strings.Contains(step.Run, "${{") {
				t.Fatalf("step %q splices an expression into its script: %s", step.Name, step.Run)
			}
			out.Reset()
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step.Run)
			cmd.Dir, cmd.Env = workDir, env
			if workDir == "" {
				cmd.Dir = t.TempDir()
			}
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Run(); err != nil {
				if ee, ok := err.(*exec.ExitError); ok {
					return out.String(), ee.ExitCode()
				}
				t.Fatalf("step %q: %v", step.Name, err)
			}
		}
		return out.String(), 0
	}

	// Valid objects: no annotation, exit 0.
	out, code := run(map[string]string{"files": filepath.Join(examples, "objects", "valid"), "crds": filepath.Join(examples, "crds")})
	if code != 0 || strings.Contains(out, "::error") {
		t.Errorf("valid CronTabs: exit %d\n%s", code, out)
	}

	// Invalid objects: an annotation on each line, exit 1, and the SARIF
	// report with the same findings.
	sarif := filepath.Join(t.TempDir(), "kubectl-crd.sarif")
	invalid := filepath.Join(examples, "objects", "invalid")
	out, code = run(map[string]string{"files": invalid + " " + filepath.Join(examples, "objects", "valid"), "crds": filepath.Join(examples, "crds"), "sarif": sarif})
	annotations := strings.Count(out, "::error file="+filepath.Join(invalid, "crontabs.yaml")+",line=")
	if code != 1 || annotations == 0 {
		t.Fatalf("invalid CronTabs: exit %d, %d annotations\n%s", code, annotations, out)
	}
	var report struct {
		Version string `json:"version"`
		Runs    []struct {
			Results []json.RawMessage `json:"results"`
		} `json:"runs"`
	}
	data, err = os.ReadFile(sarif)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &report); err != nil || report.Version != "2.1.0" || len(report.Runs) != 1 || len(report.Runs[0].Results) != annotations {
		t.Errorf("the SARIF report (%v): version %q, %d runs, want one run with the %d findings annotated\n%s", err, report.Version, len(report.Runs), annotations, data)
	}

	// A kind no CRD defines fails the job: the action checks with
	// --strict-kinds, so that a green run means the objects were checked.
	gadget := filepath.Join(t.TempDir(), "gadget.yaml")
	if err := os.WriteFile(gadget, []byte("apiVersion: example.org/v1\nkind: Gadget\nmetadata: {name: g}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, code = run(map[string]string{"files": gadget + " " + filepath.Join(examples, "objects", "valid"), "crds": filepath.Join(examples, "crds")})
	if code != 1 || !strings.Contains(out, "::error file="+gadget+",line=") {
		t.Errorf("an object of a kind no CRD defines: exit %d\n%s", code, out)
	}

	// lint: the CRDs' findings annotated; one at error severity (an enum
	// value its own pattern refuses) fails the job.
	out, code = run(map[string]string{"files": filepath.Join(examples, "objects", "valid"), "crds": filepath.Join(examples, "crds"), "lint": "crd"})
	if code != 0 || !strings.Contains(out, "::warning file="+filepath.Join(examples, "crds", "crontab.yaml")+",line=") || !strings.Contains(out, "title=kubectl crd lint%3A integers::") {
		t.Errorf("lint of the example CRDs: exit %d\n%s", code, out)
	}
	enumCRD := filepath.Join(root, "pkg", "lint", "testdata", "conventions.yaml")
	out, code = run(map[string]string{"files": filepath.Join(examples, "objects", "valid"), "crds": filepath.Join(examples, "crds") + " " + enumCRD, "lint": "crd"})
	if code != 1 || !strings.Contains(out, "::error file="+enumCRD+",line=") {
		t.Errorf("lint with an error finding: exit %d\n%s", code, out)
	}

	// No files: validate's own error, exit 2.
	if _, code = run(map[string]string{"files": filepath.Join(t.TempDir(), "missing.yaml")}); code != 2 {
		t.Errorf("a file that is not there: exit %d, want 2", code)
	}

	// A pull request's CRDs against the base branch's: a tightened bound
	// is annotated on the CRD and fails the job; the CRDs unchanged pass.
	workDir = crdRepo(t, filepath.Join(examples, "crds", "crontab.yaml"))
	crds := filepath.Join(workDir, "crds")
	out, code = run(map[string]string{"files": filepath.Join(examples, "objects", "valid"), "crds": crds, "old": "git:HEAD~1:crds"})
	if code != 1 || !strings.Contains(out, "::error file="+filepath.Join(crds, "crontab.yaml")+",line=") || !strings.Contains(out, "maximum 10 is now 5") {
		t.Errorf("a tightened bound against git:HEAD~1:crds: exit %d\n%s", code, out)
	}
	if out, code = run(map[string]string{"files": filepath.Join(examples, "objects", "valid"), "crds": crds, "old": "git:HEAD:crds"}); code != 0 {
		t.Errorf("the CRDs against themselves: exit %d\n%s", code, out)
	}
}

// crdRepo makes a git repository whose crds/ holds crd, then the same
// with its first maximum: 10 tightened to 5, committed on top.
func crdRepo(t *testing.T, crd string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	text, err := os.ReadFile(crd)
	if err != nil {
		t.Fatal(err)
	}
	steps := []func() error{
		func() error { return os.MkdirAll(filepath.Join(dir, "crds"), 0o755) },
		func() error { return os.WriteFile(filepath.Join(dir, "crds", "crontab.yaml"), text, 0o644) },
		func() error { return git(dir, "init", "-q") },
		func() error { return git(dir, "add", ".") },
		func() error { return git(dir, "commit", "-q", "-m", "the CRD") },
		func() error {
			tight := strings.Replace(string(text), "maximum: 10", "maximum: 5", 1)
			return os.WriteFile(filepath.Join(dir, "crds", "crontab.yaml"), []byte(tight), 0o644)
		},
		func() error { return git(dir, "commit", "-q", "-am", "tighter") },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func git(dir string, args ...string) error {
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git %v: %v\n%s", args, err, out)
	}
	return nil
}

// substitute puts the inputs (or their defaults) in for ${{ inputs.NAME }},
// the only expression the action's env uses.
func substitute(t *testing.T, value string, a action, inputs map[string]string) string {
	t.Helper()
	for name, in := range a.Inputs {
		v, ok := inputs[name]
		if !ok {
			if in.Required {
				t.Fatalf("input %s is required", name)
			}
			v = in.Default
		}
		value = strings.ReplaceAll(value, "${{ inputs."+name+" }}", v)
	}
	if strings.Contains(value, "${{") {
		t.Fatalf("an expression the test does not know: %s", value)
	}
	return value
}
