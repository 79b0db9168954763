package e2e

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestThroughKubectlPlugins runs kubectl crd through kubectl's plugin
// mechanism, with a kubectl built from k8s.io/kubectl.
func TestThroughKubectlPlugins(t *testing.T) {
	r := runBinary(t, "kubectl", nil, "crd", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "kubectl crd [command]") || !strings.Contains(r.stdout, "validate") {
		t.Errorf("kubectl crd --help: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, "kubectl", nil, "crd", "version")
	if r.code != 0 || !strings.Contains(r.stdout, "kubectl-crd version: "+testVersion) {
		t.Errorf("kubectl crd version: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, "kubectl", nil, "crd", "version", "-o", "json")
	if r.code != 0 || !strings.Contains(r.stdout, `"version": "`+testVersion+`"`) {
		t.Errorf("kubectl crd version -o json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runBinary(t, "kubectl", nil, "plugin", "list")
	if !strings.Contains(r.stdout, filepath.Join(binDir, "kubectl-crd")) {
		t.Errorf("kubectl plugin list does not show kubectl-crd:\n%s%s", r.stdout, r.stderr)
	}
}

func TestUnknownTypeSuggestsCloseMatches(t *testing.T) {
	r := runBinary(t, "kubectl-crd", nil, "get", "widgit")
	want := "error: the server doesn't have a resource type \"widgit\"\nDid you mean widgets.alpha.example.com or widgets.zeta.example.com?\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 1, stderr:\n%s", r.code, r.stderr, want)
	}
}

func TestDeprecatedVersionWarns(t *testing.T) {
	r := runBinary(t, "kubectl-crd", nil, "explain", "sprockets")
	if !strings.HasPrefix(r.stderr, "Warning: sprockets are going away; move to gizmos\n") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	r = runBinary(t, "kubectl-crd", []string{"KUBECONFIG="}, "get", "widgets.v1beta1.alpha.example.com", "--crds", crdDirs[0])
	if !strings.HasPrefix(r.stderr, "Warning: alpha.example.com/v1beta1 Widget is deprecated; use alpha.example.com/v1 Widget\n") {
		t.Errorf("offline stderr:\n%s", r.stderr)
	}
}

// TestBadInput checks each bad input gives its message (with file and line
// where there is one) and exit code, and no panic.
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
		stderr: "error: /nonexistent/crds: no such file or directory\n",
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
			r := runBinary(t, "kubectl-crd", tt.env, tt.args...)
			if r.code != 1 || r.stderr != tt.stderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 1, stderr:\n%s", r.code, r.stderr, tt.stderr)
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
	r := runBinary(t, "kubectl-crd", nil, "get", "widgets", "--server", "https://"+l.Addr().String(), "--request-timeout", "1s")
	if r.code != 1 || !strings.Contains(r.stderr, "Unable to connect to the server") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r.elapsed > 15*time.Second {
		t.Errorf("took %v with --request-timeout 1s", r.elapsed)
	}
}
