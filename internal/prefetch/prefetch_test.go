package prefetch

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

func write(t *testing.T, path, name string) {
	t.Helper()
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: " + name + "\n"
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
}

// names are the documents' metadata.name, "" for one not decoded.
func names(docs []manifest.Document) []string {
	var out []string
	for _, d := range docs {
		meta, _ := d.Object["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		out = append(out, name)
	}
	return out
}

// Read hands over the early reading once, for the same paths only: the
// file is changed after the early reading, so what Read returns tells
// which reading it comes from.
func TestReadTakesTheEarlyReadingOfTheSamePaths(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml")
	write(t, a, "early")
	write(t, b, "b")

	early = start([]string{a}, false)
	<-early.done
	write(t, a, "late")

	if docs, err := Read([]string{a, b}, false, nil); err != nil || len(docs) != 2 || names(docs)[0] != "late" {
		t.Errorf("other paths: %v, %v; want [late b] read now", names(docs), err)
	}
	early = start([]string{a}, false)
	<-early.done
	if docs, err := Read([]string{a}, true, nil); err != nil || len(docs) != 1 || names(docs)[0] != "late" {
		t.Errorf("other recursive flag: %v, %v; want [late]", names(docs), err)
	}

	write(t, a, "early")
	early = start([]string{a}, false)
	<-early.done
	write(t, a, "late")
	if docs, err := Read([]string{a}, false, nil); err != nil || len(docs) != 1 || names(docs)[0] != "early" {
		t.Errorf("same paths: %v, %v; want [early], read at start-up", names(docs), err)
	}
	if docs, err := Read([]string{a}, false, nil); err != nil || len(docs) != 1 || names(docs)[0] != "late" {
		t.Errorf("second Read: %v, %v; want [late], read now", names(docs), err)
	}
}

// The early reading's error is the one Read returns (here a file that
// was removed before the early reading).
func TestReadReturnsTheEarlyError(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "gone.yaml")
	_, want := manifest.ReadPathsLenient([]string{missing}, false, nil)
	if want == nil {
		t.Fatal("reading a missing file gave no error")
	}
	early = start([]string{missing}, false)
	if _, err := Read([]string{missing}, false, nil); err == nil || err.Error() != want.Error() {
		t.Errorf("Read: %v, want %v", err, want)
	}
}

// Only regular files and directories are read early: reading anything
// else (a pipe, a device) could take input from the reading that counts.
func TestPlain(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	write(t, file, "a")
	for _, c := range []struct {
		paths []string
		want  bool
	}{
		{[]string{file, dir}, true},
		{[]string{file, os.DevNull}, false},
		{[]string{filepath.Join(dir, "missing.yaml")}, false},
	} {
		if got := plain(c.paths); got != c.want {
			t.Errorf("plain(%q) = %v, want %v", c.paths, got, c.want)
		}
	}
}
