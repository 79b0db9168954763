package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// completions runs cobra's __complete and returns the candidates (without
// descriptions) and the directive line.
func completions(t *testing.T, name string, env []string, args ...string) ([]string, string) {
	t.Helper()
	r := bin.Run(t, name, env, args...)
	if r.Code != 0 {
		t.Fatalf("%s %v: exit %d\n%s", name, args, r.Code, r.Stderr)
	}
	var out []string
	directive := ""
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		switch {
		case strings.HasPrefix(line, ":"):
			directive = line
		case line != "":
			c, _, _ := strings.Cut(line, "\t")
			out = append(out, c)
		}
	}
	return out, directive
}

// TestCompletion completes TYPE and NAME arguments against the in-process
// server, directly and through kubectl's plugin completion.
func TestCompletion(t *testing.T) {
	noFiles := ":4"
	tests := []struct {
		args []string
		want []string
	}{
		// Plural, singular, short names and categories of every CRD.
		{[]string{"get", "sa"}, []string{"sample", "samples"}},
		{[]string{"get", "sm"}, []string{"smp"}},
		{[]string{"get", "to"}, []string{"toys"}},
		{[]string{"explain", "crontab"}, []string{"crontab", "crontabs"}},
		// Names of objects, in the context's namespace, with -n, with -A.
		{[]string{"get", "samples", ""}, []string{"alpha", "beta"}},
		{[]string{"get", "smp", "-n", "other", ""}, []string{"delta", "gamma"}},
		{[]string{"get", "samples", "-A", ""}, []string{"alpha", "beta", "delta", "gamma"}},
		{[]string{"get", "samples", "alpha", ""}, []string{"beta"}},
		{[]string{"get", "samples", "b"}, []string{"beta"}},
		{[]string{"get", "clusterthings", ""}, []string{"everywhere"}},
		{[]string{"get", "samples/"}, []string{"samples/alpha", "samples/beta"}},
		{[]string{"get", "no-such-type", ""}, nil},
		// Group versions for openapi v3, types for v2.
		{[]string{"openapi", "printing"}, []string{"printing.example.com/v1", "printing.example.com/v1beta1"}},
		{[]string{"openapi", "--openapi-version=2", "cron"}, []string{"cron", "crontab", "crontabs"}},
		{[]string{"openapi", "--layout", ""}, []string{"kubeconform", "vscode", "kubectl-validate"}},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			got, directive := completions(t, "kubectl-crd", nil, append([]string{"__complete"}, tt.args...)...)
			if !slices.Equal(got, tt.want) || directive != noFiles {
				t.Errorf("got %q %s, want %q %s", got, directive, tt.want, noFiles)
			}
		})
	}

	t.Run("offline types", func(t *testing.T) {
		got, _ := completions(t, "kubectl-crd", []string{"KUBECONFIG="}, "__complete", "--crds", filepath.Join(repoRoot, "examples/crds"), "get", "")
		if want := []string{"all", "cron", "crontab", "crontabs", "ct"}; !slices.Equal(got, want) {
			t.Errorf("got %q, want %q", got, want)
		}
	})

	t.Run("diff", func(t *testing.T) {
		got, _ := completions(t, "kubectl-crd", nil, "__complete", "d")
		if want := []string{"diff", "docs"}; !slices.Equal(got, want) {
			t.Errorf("verbs: got %q, want %q", got, want)
		}
		got, _ = completions(t, "kubectl-crd", nil, "__complete", "diff", "--check", "field-r")
		if want := []string{"field-removed=error", "field-removed=warning", "field-removed=info", "field-removed=ignore"}; !slices.Equal(got, want) {
			t.Errorf("--check: got %q, want %q", got, want)
		}
		got, _ = completions(t, "kubectl-crd", nil, "__complete", "diff", "--")
		for _, flag := range []string{"--old", "--no-objects", "--show-objects", "--check", "--filename"} {
			if !slices.Contains(got, flag) {
				t.Errorf("flags: %q lacks %s", got, flag)
			}
		}
	})

	t.Run("list and migrate", func(t *testing.T) {
		for prefix, want := range map[string][]string{"l": {"lint", "list", "lsp"}, "lis": {"list"}, "m": {"migrate"}, "con": {"convert"}} {
			if got, _ := completions(t, "kubectl-crd", nil, "__complete", prefix); !slices.Equal(got, want) {
				t.Errorf("verbs %q: got %q, want %q", prefix, got, want)
			}
		}
		for _, verb := range []string{"list", "ls", "migrate"} {
			if got, _ := completions(t, "kubectl-crd", nil, "__complete", verb, "sa"); !slices.Equal(got, []string{"sample", "samples"}) {
				t.Errorf("%s sa: got %q", verb, got)
			}
		}
		got, _ := completions(t, "kubectl-crd", nil, "__complete", "migrate", "samples", "--dry-run=")
		if want := []string{"none", "client", "server"}; !slices.Equal(got, want) {
			t.Errorf("migrate --dry-run: got %q, want %q", got, want)
		}
		got, _ = completions(t, "kubectl-crd", nil, "__complete", "migrate", "samples", "-o", "")
		if want := []string{"json", "yaml"}; !slices.Equal(got, want) {
			t.Errorf("migrate -o: got %q, want %q", got, want)
		}
		got, _ = completions(t, "kubectl-crd", nil, "__complete", "list", "-o", "w")
		if want := []string{"wide"}; !slices.Equal(got, want) {
			t.Errorf("list -o: got %q, want %q", got, want)
		}
	})

	t.Run("flags", func(t *testing.T) {
		got, directive := completions(t, "kubectl-crd", nil, "__complete", "get", "--crds", "")
		if want := []string{"yaml", "yml", "json"}; !slices.Equal(got, want) || directive != ":8" {
			t.Errorf("--crds: got %q %s, want file extensions %q with :8", got, directive, want)
		}
		got, _ = completions(t, "kubectl-crd", nil, "__complete", "get", "--context", "")
		if len(got) != 1 {
			t.Errorf("--context: got %q, want the test kubeconfig's one context", got)
		}
	})

	// kubectl 1.26+ completes "kubectl crd ..." by running
	// kubectl_complete-crd from PATH.
	t.Run("through kubectl", func(t *testing.T) {
		script, err := os.ReadFile(filepath.Join(repoRoot, "plugins/kubectl_complete-crd"))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "kubectl_complete-crd"), script, 0o755); err != nil {
			t.Fatal(err)
		}
		env := []string{"PATH=" + bin.Dir + string(os.PathListSeparator) + dir + string(os.PathListSeparator) + "/usr/bin:/bin"}
		got, _ := completions(t, "kubectl", env, "__complete", "crd", "v")
		if want := []string{"validate", "version"}; !slices.Equal(got, want) {
			t.Errorf("kubectl __complete crd v: got %q, want %q", got, want)
		}
		got, _ = completions(t, "kubectl", env, "__complete", "crd", "get", "samples", "")
		if want := []string{"alpha", "beta"}; !slices.Equal(got, want) {
			t.Errorf("kubectl __complete crd get samples: got %q, want %q", got, want)
		}
	})

	t.Run("scripts", func(t *testing.T) {
		for shell, marker := range map[string]string{
			"bash":       "complete -o default -F __start_kubectl-crd kubectl-crd",
			"zsh":        "#compdef kubectl-crd",
			"fish":       "complete -c kubectl-crd",
			"powershell": "Register-ArgumentCompleter -CommandName 'kubectl-crd'",
		} {
			r := bin.Run(t, "kubectl-crd", nil, "completion", shell)
			if r.Code != 0 || !strings.Contains(r.Stdout, marker) {
				t.Errorf("completion %s: exit %d, output lacks %q\n%s", shell, r.Code, marker, r.Stderr)
			}
		}
		r := bin.Run(t, "kubectl-crd", nil, "completion", "tcsh")
		if r.Code != 2 || !strings.Contains(r.Stderr, `invalid argument "tcsh"`) {
			t.Errorf("completion tcsh: exit %d\n%s", r.Code, r.Stderr)
		}
	})
}
