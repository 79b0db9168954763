package sources

import (
	"crypto/sha256"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

// repo makes a repository with two commits under crds/, then changes the
// work tree and stages a change, so that what a revision holds, the index
// and the work tree all differ.
func repo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	files := map[string]string{
		"crds/a.yaml":       "kind: A\nrevision: 1\n",
		"crds/a/inner.yaml": "kind: Inner\n",
		"crds/b.json":       `{"kind": "B"}`,
		"crds/notes.txt":    "not read",
		"other/c.yaml":      "kind: C\n",
	}
	for name, text := range files {
		put(t, filepath.Join(dir, name), text)
	}
	if err := os.Symlink("a.yaml", filepath.Join(dir, "crds", "link.yaml")); err != nil {
		t.Fatal(err)
	}
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "one")
	put(t, filepath.Join(dir, "crds/a.yaml"), "kind: A\nrevision: 2\n")
	git("commit", "-q", "-am", "two")
	put(t, filepath.Join(dir, "crds/a.yaml"), "kind: A\nrevision: staged\n")
	git("add", ".")
	put(t, filepath.Join(dir, "crds/a.yaml"), "kind: A\nrevision: work tree\n")
	return dir
}

func put(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fingerprint(t *testing.T, dir string) [32]byte {
	t.Helper()
	h := sha256.New()
	for _, f := range []string{".git/index", "crds/a.yaml"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		h.Write(data)
	}
	st, err := os.Stat(filepath.Join(dir, ".git/index"))
	if err != nil {
		t.Fatal(err)
	}
	h.Write([]byte(st.ModTime().String()))
	return [32]byte(h.Sum(nil))
}

func TestGitRevisions(t *testing.T) {
	dir := repo(t)
	before := fingerprint(t, dir)
	src := New(Options{Dir: dir})
	for _, c := range []struct {
		spec      string
		recursive bool
		names     []string
		first     string
	}{
		// A directory's files in the order they are read from disk: a
		// subdirectory's where its name sorts (a/ before a.yaml), links
		// and other endings left out.
		{"git:HEAD:crds", true, []string{"git:HEAD:crds/a/inner.yaml", "git:HEAD:crds/a.yaml", "git:HEAD:crds/b.json"}, "kind: Inner\n"},
		{"git:HEAD~1:crds", false, []string{"git:HEAD~1:crds/a.yaml", "git:HEAD~1:crds/b.json"}, "kind: A\nrevision: 1\n"},
		{"git:HEAD:crds/a.yaml", true, []string{"git:HEAD:crds/a.yaml"}, "kind: A\nrevision: 2\n"},
		{"git:HEAD~1:", false, nil, ""},
	} {
		t.Run(c.spec, func(t *testing.T) {
			texts, ok, err := src.Texts(c.spec, c.recursive)
			if !ok || err != nil {
				t.Fatalf("ok %v, %v", ok, err)
			}
			var names []string
			for _, x := range texts {
				names = append(names, x.Name)
			}
			if !slices.Equal(names, c.names) {
				t.Errorf("read %q, want %q", names, c.names)
			}
			if c.first != "" && string(texts[0].Data) != c.first {
				t.Errorf("first text %q, want %q", texts[0].Data, c.first)
			}
		})
	}
	if fingerprint(t, dir) != before {
		t.Error("the index or the work tree changed")
	}
}

// TestGitFromASubdirectory: run in a subdirectory, a ./ or ../ path is
// read from there, as git reads REV:./PATH, and a path from the top still
// from the top.
func TestGitFromASubdirectory(t *testing.T) {
	dir := repo(t)
	src := New(Options{Dir: filepath.Join(dir, "crds")})
	for spec, want := range map[string][]string{
		"git:HEAD:./a":      {"git:HEAD:./a/inner.yaml"},
		"git:HEAD:../other": {"git:HEAD:../other/c.yaml"},
		"git:HEAD:other":    {"git:HEAD:other/c.yaml"},
		"git:HEAD~1:./":     {"git:HEAD~1:./a.yaml", "git:HEAD~1:./b.json"},
	} {
		texts, ok, err := src.Texts(spec, false)
		if !ok || err != nil {
			t.Fatalf("%s: ok %v, %v", spec, ok, err)
		}
		var names []string
		for _, x := range texts {
			names = append(names, x.Name)
		}
		if !slices.Equal(names, want) {
			t.Errorf("%s: read %q, want %q", spec, names, want)
		}
	}
}

func TestGitErrors(t *testing.T) {
	dir := repo(t)
	for _, c := range []struct{ dir, spec, want string }{
		{dir, "git:no-such-branch:crds", "git:no-such-branch:crds: git knows no revision no-such-branch"},
		{dir, "git:HEAD~1:nope", "git:HEAD~1:nope: nope is not in revision HEAD~1"},
		{dir, "git:HEAD", "git:HEAD: a git source is git:REVISION:PATH"},
		{t.TempDir(), "git:HEAD:crds", "git:HEAD:crds: not in a git repository"},
	} {
		_, ok, err := New(Options{Dir: c.dir}).Texts(c.spec, true)
		if !ok || err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.spec, err, c.want)
		}
		if me, ok := err.(*manifest.Error); !ok || !me.Unopened {
			t.Errorf("%s: %T is not an unopened *manifest.Error", c.spec, err)
		}
	}
}

// TestFilesAreNotSources: paths that name no source are left to the file
// system, a chart directory is one.
func TestFilesAreNotSources(t *testing.T) {
	src := New(Options{})
	for _, p := range []string{"crds", "crds/x.yaml", "./git:x", "https"} {
		if _, ok, _ := src.Texts(p, true); ok {
			t.Errorf("%s taken for a source", p)
		}
	}
	if _, ok, err := src.Texts("../../test/testdata/charts/widgets", true); !ok || err != nil {
		t.Errorf("a chart directory: ok %v, %v", ok, err)
	}
}
