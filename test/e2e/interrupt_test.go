package e2e

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestInterruptEndsCleanly sends SIGINT to get -w, validate and diff in
// the middle of their work: each must end at once, with 130 as a shell
// reports Ctrl-C (get -w with kubectl get -w's 1), its output must end
// with a whole line, and stderr must hold no stack trace or panic.
func TestInterruptEndsCleanly(t *testing.T) {
	// Many invalid objects (a line of output each), for validate to be
	// busy printing when interrupted.
	var b strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&b, "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: c-%d, namespace: default}\nspec: {cronSpec: '* * * * */5', image: img, replicas: x%d}\n---\n", i, i)
	}
	many := filepath.Join(t.TempDir(), "many.yaml")
	writeFile(t, many, b.String())

	// diff scans the stored samples: their list is slowed down so that
	// the signal comes while it waits.
	testCluster.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/samples") && strings.Contains(r.UserAgent(), "kubectl-crd") {
			time.Sleep(3 * time.Second)
		}
		return false
	})
	defer testCluster.SetHook(nil)

	for _, c := range []struct {
		name  string
		args  []string
		after time.Duration
		code  int
	}{
		// kubectl's watch ends the process itself, with 1, as kubectl
		// get --watch does.
		{"get -w", []string{"get", "samples", "-A", "-w"}, 3 * time.Second, 1},
		{"validate", []string{"validate", "--crds", filepath.Join(repoRoot, "examples/crds"), "-f", many}, 1500 * time.Millisecond, 130},
		{"diff", []string{"diff", "-f", filepath.Join(repoRoot, "test/testdata/crds/samples.printing.yaml")}, 1500 * time.Millisecond, 130},
	} {
		t.Run(c.name, func(t *testing.T) {
			run := bin.Start(t, "kubectl-crd", nil, c.args...)
			time.Sleep(c.after)
			run.Signal(t, os.Interrupt)
			r := run.Wait(t)
			if r.Code != c.code || r.Elapsed > c.after+2*time.Second {
				t.Errorf("exit %d after %v, want %d at once (the command ended on its own before the signal?)\n%s", r.Code, r.Elapsed, c.code, tail(r.Stderr))
			}
			if c.name == "get -w" && lines(r.Stdout) < 2 {
				t.Errorf("get -w printed %d lines before the signal", lines(r.Stdout))
			}
			if r.Stdout != "" && !strings.HasSuffix(r.Stdout, "\n") {
				t.Errorf("the output ends in the middle of a line: %q", tail(r.Stdout))
			}
			for _, trace := range []string{"goroutine ", "panic:", "runtime."} {
				if strings.Contains(r.Stderr, trace) {
					t.Errorf("stderr holds %q:\n%s", trace, tail(r.Stderr))
				}
			}
			t.Logf("%d bytes of output, %d lines, ended after %v", len(r.Stdout), strings.Count(r.Stdout, "\n"), r.Elapsed.Round(time.Millisecond))
		})
	}
}

func lines(s string) int { return strings.Count(s, "\n") }

// tail is the end of s, for messages.
func tail(s string) string {
	if len(s) > 400 {
		return "..." + s[len(s)-400:]
	}
	return s
}
