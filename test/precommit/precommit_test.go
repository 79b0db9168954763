// Package precommit tests the repository's pre-commit hook with the
// pre-commit tool itself: a repository that uses the hook refuses a commit
// of an invalid custom resource with its file:line message and takes a
// valid one.
package precommit

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestHook(t *testing.T) {
	if testing.Short() {
		t.Skip("pre-commit builds kubectl-crd")
	}
	precommit, err := exec.LookPath("pre-commit")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("pre-commit is not on PATH: .ci/run installs Debian's pre-commit package")
		}
		t.Skip("pre-commit is not on PATH (Debian's pre-commit package has it): the hook is not tested")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	env := environment(t)
	hooks, rev := snapshot(t, root, env)

	repo := t.TempDir()
	git(t, repo, env, "init", "-q")
	write(t, repo, "crds/crontab.yaml", read(t, filepath.Join(root, "examples", "crds", "crontab.yaml")))
	write(t, repo, ".pre-commit-config.yaml", []byte(`repos:
- repo: `+hooks+`
  rev: `+rev+`
  hooks:
  - id: kubectl-crd-validate
    args: [--crds, crds/]
    files: ^deploy/
  - id: kubectl-crd-lint
    args: [--check, ssatags=error]
    files: ^crds/
`))
	run(t, repo, env, precommit, "install")

	write(t, repo, "deploy/crontabs.yaml", read(t, filepath.Join(root, "examples", "objects", "valid", "crontabs.yaml")))
	git(t, repo, env, "add", ".")
	if out, err := command(repo, env, "git", "commit", "-q", "-m", "valid"); err != nil {
		t.Fatalf("a commit of valid objects: %v\n%s", err, out)
	}

	bad := []byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: nightly\nspec:\n  cronSpec: \"* * * * */5\"\n  replicas: 11\n")
	write(t, repo, "deploy/nightly.yaml", bad)
	git(t, repo, env, "add", ".")
	out, err := command(repo, env, "git", "commit", "-q", "-m", "invalid")
	if err == nil {
		t.Fatalf("a commit of an invalid CronTab was taken:\n%s", out)
	}
	if want := "deploy/nightly.yaml:7:3: spec.replicas: Invalid value: 11"; !strings.Contains(out, want) {
		t.Errorf("the refused commit's output lacks %q:\n%s", want, out)
	}
	if n := strings.TrimSpace(git(t, repo, env, "rev-list", "--count", "HEAD")); n != "1" {
		t.Errorf("%s commits after the refused one, want 1", n)
	}

	// The lint hook: a CRD whose list has no list type is refused (ssatags
	// at error by the hook's args), at the list's line.
	git(t, repo, env, "rm", "-q", "--cached", "deploy/nightly.yaml")
	listCRD := strings.Replace(string(read(t, filepath.Join(root, "examples", "crds", "crontab.yaml"))),
		"              image:\n", "              hosts:\n                type: array\n                items: {type: string}\n              image:\n", 1)
	if !strings.Contains(listCRD, "hosts:") {
		t.Fatal("examples/crds/crontab.yaml changed: the test's edit no longer applies")
	}
	write(t, repo, "crds/crontab.yaml", []byte(listCRD))
	git(t, repo, env, "add", "crds/crontab.yaml")
	out, err = command(repo, env, "git", "commit", "-q", "-m", "a list without a list type")
	if err == nil {
		t.Fatalf("a commit of a CRD lint refuses was taken:\n%s", out)
	}
	if want := "error ssatags: crontabs.stable.example.com v1 spec.hosts: a list without x-kubernetes-list-type"; !strings.Contains(out, want) {
		t.Errorf("the refused commit's output lacks %q:\n%s", want, out)
	}
}

// environment is what pre-commit, git and go run with: a home, git
// identity and pre-commit cache of the test's own, and the Go caches of
// the test's go (pre-commit points GOPATH, and with it the default module
// cache, at its own directory), and its build flags, so that the hook's
// build reuses the packages the tests compiled.
func environment(t *testing.T) []string {
	home := t.TempDir()
	goEnv := func(name string) string {
		out, err := exec.Command("go", "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	return append(os.Environ(),
		"HOME="+home, "PRE_COMMIT_HOME="+filepath.Join(home, "pre-commit"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GOCACHE="+goEnv("GOCACHE"), "GOMODCACHE="+goEnv("GOMODCACHE"), "GOFLAGS="+goEnv("GOFLAGS"))
}

// snapshot commits the repository's files as they are in the work tree
// (tracked and untracked, not ignored) to a new repository, for pre-commit
// to clone, and gives its path and commit.
func snapshot(t *testing.T, root string, env []string) (string, string) {
	dir := t.TempDir()
	files := git(t, root, env, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	for _, name := range strings.Split(strings.TrimRight(files, "\x00"), "\x00") {
		data, err := os.ReadFile(filepath.Join(root, name))
		if os.IsNotExist(err) {
			continue // deleted in the work tree
		}
		if err != nil {
			t.Fatal(err)
		}
		write(t, dir, name, data)
	}
	git(t, dir, env, "init", "-q")
	git(t, dir, env, "add", ".")
	git(t, dir, env, "commit", "-q", "-m", "snapshot")
	return dir, strings.TrimSpace(git(t, dir, env, "rev-parse", "HEAD"))
}

func git(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	return run(t, dir, env, "git", args...)
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	out, err := command(dir, env, name, args...)
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return out
}

func command(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.String(), err
}

func read(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func write(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
