//go:build unix

package manifest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A pipe (as -f <(helm template ...) gives) can be read once: its text is
// kept for the walks after the first.
func TestEachKeepsAPipe(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skip("no named pipe here:", err)
	}
	written := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString("kind: A\n---\nkind: B\n")
			f.Close()
		}
		written <- err
	}()
	walkTwice(t, open(t, nil, path), []chunkOf{{1, "kind: A\n"}, {3, "kind: B\n"}})
	if err := <-written; err != nil {
		t.Fatal(err)
	}
}

// TestFilesThroughALinkToADirectory: a path that is a link to a directory
// names the directory's files (it named none, silently).
func TestFilesThroughALinkToADirectory(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.yaml", "sub/b.yaml", "c.txt"} {
		if err := os.WriteFile(filepath.Join(real, f), []byte("a: 1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	for recursive, want := range map[bool]string{false: link + "/a.yaml", true: link + "/a.yaml " + link + "/sub/b.yaml"} {
		files, err := Files([]string{link}, recursive)
		if err != nil || strings.Join(files, " ") != want {
			t.Errorf("recursive %v: %v %v, want %s", recursive, files, err, want)
		}
	}
}
