// Package gitrepo makes git work trees for tests: a copy of a directory
// of test data, committed, as a repository a user runs kubectl crd in.
package gitrepo

import (
	"os"
	"os/exec"
	"testing"
)

// Copy copies the directory src into a new git work tree, with every
// file committed, and returns the tree's directory (removed after t).
func Copy(t testing.TB, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=test@example.com", "-c", "user.name=test", "commit", "-qm", "test data"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}
