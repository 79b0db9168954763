package catalog

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
)

// answers lists what a catalog over paths says: every CRD's outline and
// whole definition, by name, or the error.
func answers(t *testing.T, paths []string, index *Index) string {
	t.Helper()
	files, err := ReadFiles(paths, nil, index)
	if err != nil {
		return "error: " + err.Error()
	}
	var out []string
	for _, fc := range files.crds {
		crd, err := files.Get(context.Background(), fc.outline.Name)
		if err != nil {
			out = append(out, fc.outline.Name+": "+err.Error())
			continue
		}
		o, _ := json.Marshal(fc.outline)
		whole, _ := json.Marshal(crd)
		out = append(out, string(o)+"\n"+string(whole)+"\n"+crd.Origin)
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// crdDir copies the test CRDs into a directory of their own.
func crdDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"gizmos.beta.yaml", "samples.printing.yaml", "widgets.alpha.yaml", "doohickeys.gamma.v1beta1.yaml"} {
		data, err := os.ReadFile(testdata("crds", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testIndex indexes files however recently they changed (the tests write
// them just before).
func testIndex(t *testing.T) *Index {
	return &Index{dir: filepath.Join(t.TempDir(), "index")}
}

func indexed(t *testing.T, x *Index, path string) bool {
	t.Helper()
	_, ok := x.load(path)
	return ok
}

// TestIndexFollowsFiles: with the index, a catalog answers as without it,
// first and later runs alike, whatever happens to the files in between.
func TestIndexFollowsFiles(t *testing.T) {
	dir := crdDir(t)
	x := testIndex(t)
	check := func(step string) {
		t.Helper()
		want := answers(t, []string{dir}, nil)
		if got := answers(t, []string{dir}, x); got != want {
			t.Fatalf("%s, first run: the index answers\n%s\nwithout it:\n%s", step, got, want)
		}
		if got := answers(t, []string{dir}, x); got != want {
			t.Fatalf("%s, from the index: the index answers\n%s\nwithout it:\n%s", step, got, want)
		}
	}
	check("as written")
	gizmos := filepath.Join(dir, "gizmos.beta.yaml")
	if !indexed(t, x, gizmos) {
		t.Fatal("a file read with the index was not indexed")
	}

	// Changed in place, to the same size.
	data, _ := os.ReadFile(gizmos)
	changed := strings.Replace(string(data), "plural: gizmos", "plural: gizmoz", 1)
	if len(changed) != len(data) || changed == string(data) {
		t.Fatal("the test's change should keep the size")
	}
	if err := os.WriteFile(gizmos, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if indexed(t, x, gizmos) {
		t.Error("a changed file is answered from its old entry")
	}
	check("changed")

	// Renamed, deleted, added.
	if err := os.Rename(gizmos, filepath.Join(dir, "renamed.yaml")); err != nil {
		t.Fatal(err)
	}
	check("renamed")
	if err := os.Remove(filepath.Join(dir, "samples.printing.yaml")); err != nil {
		t.Fatal(err)
	}
	check("deleted")
	data, _ = os.ReadFile(testdata("crds", "sprockets.beta.yaml"))
	if err := os.WriteFile(filepath.Join(dir, "added.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	check("added")
}

// TestIndexBroken: a truncated entry, a changed byte in an entry and an
// index that cannot be written give the answers of no index.
func TestIndexBroken(t *testing.T) {
	dir := crdDir(t)
	want := answers(t, []string{dir}, nil)
	x := testIndex(t)
	answers(t, []string{dir}, x)
	widgets := filepath.Join(dir, "widgets.alpha.yaml")
	entry, err := x.entryPath(widgets)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(entry)
	if err != nil {
		t.Fatal(err)
	}

	// The last byte changed: the whole CRD fails its checksum when used.
	flipped := append([]byte(nil), data...)
	flipped[len(flipped)-1] ^= 0xff
	if err := os.WriteFile(entry, flipped, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := answers(t, []string{dir}, x); got != want {
		t.Errorf("a changed byte:\n%s\nwant\n%s", got, want)
	}

	// Cut short: not used, and written again.
	if err := os.WriteFile(entry, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if indexed(t, x, widgets) {
		t.Error("a truncated entry is used")
	}
	if got := answers(t, []string{dir}, x); got != want {
		t.Errorf("a truncated entry:\n%s\nwant\n%s", got, want)
	}
	if !indexed(t, x, widgets) {
		t.Error("a truncated entry was not written again")
	}

	// An index that is a file, not a directory.
	blocked := filepath.Join(t.TempDir(), "blocked")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := answers(t, []string{dir}, &Index{dir: blocked}); got != want {
		t.Errorf("an index that cannot be written:\n%s\nwant\n%s", got, want)
	}
}

// TestIndexAtOnce: catalogs filling one index at the same time all answer
// as without it, and leave entries a later run can use.
func TestIndexAtOnce(t *testing.T) {
	dir := crdDir(t)
	want := answers(t, []string{dir}, nil)
	x := testIndex(t)
	var wg sync.WaitGroup
	got := make([]string, 8)
	for i := range got {
		wg.Go(func() { got[i] = answers(t, []string{dir}, x) })
	}
	wg.Wait()
	for i, g := range got {
		if g != want {
			t.Fatalf("catalog %d:\n%s\nwant\n%s", i, g, want)
		}
	}
	if !indexed(t, x, filepath.Join(dir, "samples.printing.yaml")) {
		t.Error("no entry left")
	}
	if got := answers(t, []string{dir}, x); got != want {
		t.Errorf("from the entries:\n%s\nwant\n%s", got, want)
	}
}

// TestIndexSkipsRecentFiles: a file changed within the last two seconds
// is not indexed (a second change in the same tick could keep its
// identity).
func TestIndexSkipsRecentFiles(t *testing.T) {
	dir := crdDir(t)
	x := NewIndex(filepath.Join(t.TempDir(), "index"))
	answers(t, []string{dir}, x)
	if indexed(t, x, filepath.Join(dir, "gizmos.beta.yaml")) {
		t.Error("a file written just now was indexed")
	}
}
