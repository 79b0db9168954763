// Package tour runs the commands the README's tour shows, and those of the
// docs' pages marked for it (a fenced block whose info string is
// "console tour"), and compares what they print with what the page shows,
// so that a change of behaviour that makes the docs wrong fails.
package tour

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

var (
	bin      *harness.Bin
	repoRoot string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if repoRoot, err = filepath.Abs("../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if bin, err = harness.Build(repoRoot); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer bin.Remove()
	return m.Run()
}

// step is a command of a block and the output the page shows for it.
type step struct {
	command string
	want    string
}

// blocks reads the "console tour" blocks of a Markdown file.
func blocks(t *testing.T, path string) [][]step {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]step
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```console tour" {
			continue
		}
		var steps []step
		for i++; i < len(lines) && lines[i] != "```"; i++ {
			if cmd, ok := strings.CutPrefix(lines[i], "$ "); ok {
				steps = append(steps, step{command: cmd})
				continue
			}
			if len(steps) == 0 {
				t.Fatalf("%s:%d: output before any command", path, i+1)
			}
			steps[len(steps)-1].want += lines[i] + "\n"
		}
		out = append(out, steps)
	}
	return out
}

// age is an AGE column's value at the end of a line (5s, 3m, 2d4h).
var age = regexp.MustCompile(`\s+(\d+[smhd])+$`)

// normalize drops trailing spaces and blank lines, and ages.
func normalize(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = age.ReplaceAllString(strings.TrimRight(l, " \t"), " AGE")
	}
	return strings.Join(lines, "\n")
}

func TestTour(t *testing.T) {
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join(repoRoot, "README.md")}, pages...)
	ran := 0
	for _, page := range pages {
		for n, steps := range blocks(t, page) {
			name := fmt.Sprintf("%s#%d", filepath.Base(page), n+1)
			t.Run(name, func(t *testing.T) {
				dir := t.TempDir()
				if err := os.Symlink(filepath.Join(repoRoot, "examples"), filepath.Join(dir, "examples")); err != nil {
					t.Fatal(err)
				}
				for _, s := range steps {
					got := runStep(t, dir, s.command)
					if normalize(got) != normalize(s.want) {
						t.Errorf("%s\n$ %s\nthe page shows:\n%s\nit prints:\n%s", name, s.command, s.want, got)
					}
					ran++
				}
			})
		}
	}
	if ran < 9 {
		t.Errorf("%d commands in the tour: the README's tour has one per verb", ran)
	}
}

// runStep runs a command of the tour in dir, offline: kubectl crd is the
// built binary; any other command (ls) runs in the shell.
func runStep(t *testing.T, dir, command string) string {
	t.Helper()
	var cmd *exec.Cmd
	if args, ok := strings.CutPrefix(command, "kubectl crd "); ok {
		cmd = exec.Command(filepath.Join(bin.Dir, "kubectl-crd"), strings.Fields(args)...)
	} else {
		cmd = exec.Command("sh", "-c", command)
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "KUBECONFIG=", "HOME="+dir, "KUBECTL_CRD_CACHE_DIR="+filepath.Join(dir, "cache"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() > 2 {
		t.Errorf("$ %s: exit %d", command, ee.ExitCode())
	} else if err != nil && !ok {
		t.Fatalf("$ %s: %v", command, err)
	}
	return out.String()
}
