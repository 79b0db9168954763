//go:build unix

package manifest

import (
	"os"
	"path/filepath"
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
