package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

// TestThroughKubectlPlugins runs kubectl crd through kubectl's plugin
// mechanism, with a kubectl built from k8s.io/kubectl.
func TestThroughKubectlPlugins(t *testing.T) {
	r := bin.Run(t, "kubectl", nil, "crd", "--help")
	if r.Code != 0 || !strings.Contains(r.Stdout, "kubectl crd [command]") || !strings.Contains(r.Stdout, "validate") {
		t.Errorf("kubectl crd --help: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = bin.Run(t, "kubectl", nil, "crd", "version")
	if r.Code != 0 || !strings.Contains(r.Stdout, "kubectl-crd version: "+harness.TestVersion) {
		t.Errorf("kubectl crd version: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = bin.Run(t, "kubectl", nil, "crd", "version", "-o", "json")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"version": "`+harness.TestVersion+`"`) {
		t.Errorf("kubectl crd version -o json: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = bin.Run(t, "kubectl", nil, "plugin", "list")
	if !strings.Contains(r.Stdout, filepath.Join(bin.Dir, "kubectl-crd")) {
		t.Errorf("kubectl plugin list does not show kubectl-crd:\n%s%s", r.Stdout, r.Stderr)
	}
}

// TestNoWorkAtStart: the project's own packages build nothing when the
// program starts, whatever the command (what the k8s.io packages do then
// is theirs). Go's inittrace reports the initialisation of every package
// that has any; a package of this module may at most declare a value made
// when first asked for (sync.OnceValue: a few small allocations), not make
// it: a compiled regular expression, a table or a scheme is kilobytes.
func TestNoWorkAtStart(t *testing.T) {
	r := bin.Run(t, "kubectl-crd", []string{"GODEBUG=inittrace=1"}, "version")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	traced := 0
	for line := range strings.Lines(r.Stderr) {
		// init PACKAGE @START ms, CLOCK ms clock, BYTES bytes, ALLOCS allocs
		f := strings.Fields(line)
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		traced++
		if !strings.HasPrefix(f[1], "github.com/kubectl-crd/kubectl-crd/") {
			continue
		}
		if n, err := strconv.Atoi(f[7]); err != nil || n > 1024 {
			t.Errorf("%s works when the program starts: %s", f[1], strings.TrimSpace(line))
		}
	}
	if traced < 100 {
		t.Fatalf("inittrace reported %d packages; the check would prove nothing:\n%s", traced, r.Stderr)
	}
}

func TestUnknownTypeSuggestsCloseMatches(t *testing.T) {
	r := bin.Run(t, "kubectl-crd", nil, "get", "widgit")
	want := "error: the server doesn't have a resource type \"widgit\"\nDid you mean widgets.alpha.example.com or widgets.zeta.example.com?\n"
	if r.Code != 2 || r.Stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2, stderr:\n%s", r.Code, r.Stderr, want)
	}
}

func TestDeprecatedVersionWarns(t *testing.T) {
	r := bin.Run(t, "kubectl-crd", nil, "explain", "sprockets")
	if !strings.HasPrefix(r.Stderr, "Warning: sprockets are going away; move to gizmos\n") {
		t.Errorf("stderr:\n%s", r.Stderr)
	}
	r = bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "get", "widgets.v1beta1.alpha.example.com", "--crds", crdDirs[0])
	if !strings.HasPrefix(r.Stderr, "Warning: alpha.example.com/v1beta1 Widget is deprecated; use alpha.example.com/v1 Widget\n") {
		t.Errorf("offline stderr:\n%s", r.Stderr)
	}
}

// TestBadInput checks each bad input gives its message (with file and line
// where there is one, the flag where the file cannot be opened) and exit
// code 2, and no panic.
func TestBadInput(t *testing.T) {
	bad := filepath.Join(repoRoot, "test/testdata/bad")
	noConfig := []string{"KUBECONFIG="}
	tests := []struct {
		name   string
		env    []string
		args   []string
		stderr string // the whole of stderr
	}{{
		name:   "missing --crds path",
		env:    noConfig,
		args:   []string{"get", "widgets", "--crds", "/nonexistent/crds"},
		stderr: "error: --crds /nonexistent/crds: no such file or directory\n",
	}, {
		name:   "malformed YAML",
		env:    noConfig,
		args:   []string{"get", "widgets", "--crds", filepath.Join(bad, "malformed.yaml")},
		stderr: "error: " + filepath.Join(bad, "malformed.yaml") + ":7: invalid YAML: did not find expected ',' or ']'\n",
	}, {
		name:   "duplicate key",
		env:    noConfig,
		args:   []string{"get", "widgets", "--crds", filepath.Join(bad, "duplicate-key.yaml")},
		stderr: "error: " + filepath.Join(bad, "duplicate-key.yaml") + ":7:3: duplicate key \"group\" (first at line 6)\n",
	}, {
		name:   "tab in the second document",
		env:    noConfig,
		args:   []string{"get", "widgets", "--crds", filepath.Join(bad, "tab-in-second-doc.yaml")},
		stderr: "error: " + filepath.Join(bad, "tab-in-second-doc.yaml") + ":9: invalid YAML: found character that cannot start any token\n",
	}, {
		name:   "no kubeconfig at all",
		env:    noConfig,
		args:   []string{"get", "widgets"},
		stderr: "error: no cluster configured: no kubeconfig was found (set KUBECONFIG or --kubeconfig), or use --crds PATH to read CRDs from files\n",
	}, {
		name:   "unknown flag",
		args:   []string{"get", "widgets", "--no-such-flag"},
		stderr: "error: unknown flag: --no-such-flag\nSee 'kubectl crd get --help' for usage\n",
	}, {
		name:   "connection refused",
		args:   []string{"get", "widgets", "--server", "https://127.0.0.1:1"},
		stderr: "The connection to the server 127.0.0.1:1 was refused - did you specify the right host or port?\n",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := bin.Run(t, "kubectl-crd", tt.env, tt.args...)
			if r.Code != 2 || r.Stderr != tt.stderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2, stderr:\n%s", r.Code, r.Stderr, tt.stderr)
			}
		})
	}
}

// TestStalledServerHonoursRequestTimeout points kubectl crd at a server
// that accepts connections and never answers.
func TestStalledServerHonoursRequestTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	r := bin.Run(t, "kubectl-crd", nil, "get", "widgets", "--server", "https://"+l.Addr().String(), "--request-timeout", "1s")
	if r.Code != 2 || !strings.Contains(r.Stderr, "Unable to connect to the server") {
		t.Errorf("exit %d, stderr:\n%s", r.Code, r.Stderr)
	}
	if r.Elapsed > 15*time.Second {
		t.Errorf("took %v with --request-timeout 1s", r.Elapsed)
	}
}

func readFile(path string) ([]byte, error) { return os.ReadFile(path) }

// TestExitCodes is the exit-code table of every verb (how-it-works.md):
// 0 done and nothing found, 1 findings, 2 the job could not be done (a
// usage error, cobra's flag errors too, an input that cannot be read).
func TestExitCodes(t *testing.T) {
	ex := func(p string) string { return filepath.Join(repoRoot, "examples", p) }
	crds := ex("crds")
	missing := filepath.Join(t.TempDir(), "nosuch.yaml")
	out := t.TempDir()
	cases := []struct {
		code int
		args []string
	}{
		{0, []string{"get", "-f", ex("objects/valid"), "--crds", crds}},
		{2, []string{"get", "-f", missing, "--crds", crds}},
		{2, []string{"get", "crontabs", "--crds", missing}},
		{0, []string{"explain", "crontabs.spec", "--crds", crds}},
		{2, []string{"explain", "crontabz", "--crds", crds}},
		{0, []string{"validate", "-f", ex("objects/valid"), "--crds", crds}},
		{1, []string{"validate", "-f", ex("objects/invalid"), "--crds", crds}},
		{2, []string{"validate", "-f", missing, "--crds", crds}},
		{2, []string{"validate", "-f", ex("objects/valid"), "--offline"}},
		{0, []string{"openapi", "stable.example.com/v1", "--crds", crds}},
		{2, []string{"openapi", "--openapi-version", "4", "--crds", crds}},
		{0, []string{"diff", "-f", ex("graduation/widgets-v1.yaml"), "--old", ex("graduation/widgets-v1.yaml")}},
		{1, []string{"diff", "-f", ex("graduation/widgets-v1-only.yaml"), "--old", ex("graduation/widgets-v1.yaml")}},
		{2, []string{"diff", "-f", missing, "--old", crds}},
		{0, []string{"list", "-f", crds}},
		{2, []string{"list", "-f", missing}},
		{2, []string{"migrate", "crontabs", "--crds", crds}},
		{0, []string{"convert", "-f", ex("objects/valid"), "--crds", crds, "--output-version", "v1beta1"}},
		{2, []string{"convert", "-f", missing, "--crds", crds}},
		{0, []string{"sample", "crontabs", "--crds", crds}},
		{2, []string{"sample", "crontabz", "--crds", crds}},
		{0, []string{"docs", "--crds", crds, "--output-dir", out}},
		{2, []string{"docs", "--crds", crds}},
		{2, []string{"lsp", "an-argument"}},
		{0, []string{"version"}},
		{2, []string{"version", "-o", "xml"}},
		{0, []string{"completion", "bash"}},
		{2, []string{"completion", "tcsh"}},
		{0, []string{"test", ex("tests"), "--crds", crds}},
		{2, []string{"test", missing, "--crds", crds}},
		{0, []string{"cost", "crontabs", "--crds", crds}},
		{1, []string{"cost", "-f", ex("cost/hosts.yaml")}},
		{2, []string{"cost", "-f", missing}},
	}
	verbs := map[string]bool{}
	for _, c := range cases {
		verbs[c.args[0]] = true
		r := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, c.args...)
		if r.Code != c.code {
			t.Errorf("kubectl crd %s: exit %d, want %d\n%s", strings.Join(c.args, " "), r.Code, c.code, r.Stderr)
		}
		// Every verb's cobra flag errors are usage errors too.
		if flag := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, c.args[0], "--no-such-flag"); flag.Code != 2 {
			t.Errorf("kubectl crd %s --no-such-flag: exit %d, want 2", c.args[0], flag.Code)
		}
	}
	if len(verbs) != 15 {
		t.Errorf("%d verbs in the table, want all 15", len(verbs))
	}
}
