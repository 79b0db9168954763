package cmd

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestEveryVerbCompletesValidatesRuns walks every verb of the command
// tree: a usage error runs Complete then Validate, never Run, and exits 2;
// a good command line runs Complete, Validate and Run in that order; an
// unknown flag (cobra's own error) exits 2 before any step.
func TestEveryVerbCompletesValidatesRuns(t *testing.T) {
	examples := filepath.Join("..", "..", "examples")
	crds := filepath.Join(examples, "crds")
	valid := filepath.Join(examples, "objects", "valid")
	out := t.TempDir()
	cases := map[string]struct{ usage, good []string }{
		"get":        {[]string{"crontabs", "-o", "name", "--show-labels"}, []string{"-f", valid}},
		"explain":    {[]string{"crontabs", "-o", "yaml"}, []string{"crontabs.spec"}},
		"validate":   {nil, []string{"-f", valid}},
		"openapi":    {[]string{"--openapi-version", "4"}, []string{"stable.example.com/v1"}},
		"diff":       {[]string{"x"}, []string{"-f", filepath.Join(crds, "crontab.yaml")}},
		"list":       {[]string{"-l", "=="}, nil},
		"migrate":    {nil, nil}, // writes to a cluster: not with --crds
		"convert":    {[]string{"--round-trip", "--check"}, []string{"-f", valid, "--output-version", "v1beta1"}},
		"lsp":        {[]string{"an-argument"}, nil},
		"docs":       {nil, []string{"--output-dir", out}},
		"sample":     {nil, []string{"crontabs"}},
		"version":    {[]string{"-o", "xml"}, nil},
		"completion": {[]string{"tcsh"}, []string{"bash"}},
		"test":       {nil, []string{filepath.Join(examples, "tests")}},
		"cost":       {[]string{"-o", "xml"}, []string{"crontabs"}},
		"lint":       {[]string{"--check", "nope=error"}, []string{"crontabs"}},
	}
	noGood := map[string]bool{"migrate": true, "lsp": true}
	root := newRootCommand(factory.New(genericiooptions.IOStreams{}))
	for _, c := range root.Commands() {
		name := c.Name()
		if name == "help" {
			continue
		}
		tt, ok := cases[name]
		if !ok {
			t.Errorf("verb %s: no case here; every verb must keep the contract", name)
			continue
		}
		try := func(args ...string) ([]string, int) {
			f, _, _ := testFactory(t)
			var steps []string
			f.Trace = func(step string) { steps = append(steps, step) }
			err := execute(f, append(append([]string{name}, args...), "--crds", crds)...)
			return steps, exitCodeOf(err)
		}
		if steps, code := try(tt.usage...); code != 2 || !slices.Equal(steps, []string{"Complete", "Validate"}) {
			t.Errorf("%s %s: exit %d after %v; want 2 after Complete, Validate", name, strings.Join(tt.usage, " "), code, steps)
		}
		if steps, code := try("--no-such-flag"); code != 2 || len(steps) != 0 {
			t.Errorf("%s --no-such-flag: exit %d after %v; want 2 before any step", name, code, steps)
		}
		if noGood[name] {
			continue
		}
		if steps, code := try(tt.good...); code != 0 || !slices.Equal(steps, []string{"Complete", "Validate", "Run"}) {
			t.Errorf("%s %s: exit %d after %v; want 0 after Complete, Validate, Run", name, strings.Join(tt.good, " "), code, steps)
		}
	}
}
