package manifest

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// chunkOf is what a test compares of a chunk.
type chunkOf struct {
	line int
	text string
}

func walk(t *testing.T, in *Input) ([]chunkOf, error) {
	t.Helper()
	var got []chunkOf
	err := in.Each(func(c Chunk) bool {
		got = append(got, chunkOf{c.line, string(c.text)})
		return true
	})
	return got, err
}

// open opens paths, failing the test if it cannot.
func open(t *testing.T, stdin io.Reader, paths ...string) *Input {
	t.Helper()
	in, err := OpenPaths(paths, false, Stdin(stdin))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

// walkTwice walks in twice, each time wanting want.
func walkTwice(t *testing.T, in *Input, want []chunkOf) {
	t.Helper()
	for pass := range 2 {
		got, err := walk(t, in)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("pass %d: %d chunks, want %d", pass, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("pass %d: chunk %d at line %d (%d bytes), want line %d (%d bytes)", pass, i, got[i].line, len(got[i].text), want[i].line, len(want[i].text))
			}
		}
	}
}

// A YAML file is cut where its separator lines are, wherever they fall in
// the reader's buffer, and lines longer than the buffer stay whole.
func TestEachCutsAFileAsItReads(t *testing.T) {
	var file strings.Builder
	var want []chunkOf
	line := 1
	add := func(text, separator string) {
		want = append(want, chunkOf{line, text})
		file.WriteString(text)
		file.WriteString(separator)
		line += strings.Count(text, "\n") + 1
	}
	add("apiVersion: v1\nkind: A\n", "---\n")
	add("kind: B\nlong: "+strings.Repeat("x --- ", 40<<10)+"\n", "--- # a comment\r\n")
	// Documents whose ends fall on each side of the 64 KiB buffer's.
	for size := 64<<10 - 6; size < 64<<10+6; size++ {
		text := "kind: C\ndata: " + strings.Repeat("y", size-len("kind: C\ndata: \n")) + "\n"
		add(text, "---\n")
	}
	add("kind: D\n", "---")
	want = append(want, chunkOf{line, ""}) // after a last separator, an empty document

	path := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(path, []byte(file.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	walkTwice(t, open(t, nil, path), want)
	// The same cut of the same bytes held in memory.
	mem, _ := walk(t, InputOf(path, []byte(file.String())))
	if len(mem) != len(want) {
		t.Fatalf("in memory: %d chunks, want %d", len(mem), len(want))
	}
	for i := range want {
		if mem[i] != want[i] {
			t.Errorf("in memory: chunk %d at line %d (%d bytes), want line %d (%d bytes)", i, mem[i].line, len(mem[i].text), want[i].line, len(want[i].text))
		}
	}
}

// A document over MaxDocument is not read into memory, only measured, and
// the documents after it are cut as before; held in memory, the same
// document is refused the same way.
func TestEachMeasuresADocumentTooLargeToRead(t *testing.T) {
	big := "kind: B\ndata: \"" + strings.Repeat("z", MaxDocument) + "\"\n"
	text := "kind: A\n---\n" + big + "---\nkind: C\n"
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	in := open(t, nil, path)
	for i, in := range []*Input{in, InputOf(path, []byte(text))} {
		var chunks []Chunk
		if err := in.Each(func(c Chunk) bool { chunks = append(chunks, c); return true }); err != nil {
			t.Fatal(err)
		}
		if len(chunks) != 3 || chunks[1].size != len(big) || chunks[1].line != 3 || chunks[2].line != 6 || string(chunks[2].text) != "kind: C\n" {
			t.Fatalf("%d chunks, the second of %d bytes at line %d", len(chunks), chunks[1].size, chunks[1].line)
		}
		if i == 0 && chunks[1].text != nil {
			t.Errorf("the file's large document was read: %d bytes kept", len(chunks[1].text))
		}
		docs := chunks[1].Decode()
		if len(docs) != 1 || docs[0].Err == nil || !strings.Contains(docs[0].Err.Error(), "document of 64 MiB not read") || docs[0].Line != 3 {
			t.Errorf("the large document decodes to %+v", docs)
		}
	}
}

// A walk stops when f says so.
func TestEachStops(t *testing.T) {
	in := InputOf("in.yaml", []byte("kind: A\n---\nkind: B\n---\nkind: C\n"))
	n := 0
	if err := in.Each(func(Chunk) bool { n++; return n < 2 }); err != nil || n != 2 {
		t.Errorf("walked %d chunks (%v), want to stop at 2", n, err)
	}
}

// JSON streams, flow-style YAML that starts like JSON, and a file that
// starts with more blanks than a buffer holds are read as a whole file is.
func TestEachReadsLikeSplit(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"stream.json": "{\"kind\": \"A\"}\n  {\"kind\":\n \"B\"}\n",
		"flow.yaml":   "{kind: A, apiVersion: v1}\n---\n{kind: B}\n",
		"blanks.yaml": strings.Repeat(" \n", 40<<10) + "{\"kind\": \"A\"}",
		"crlf.yaml":   "kind: A\r\n---\r\nkind: B\r\n",
	} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		in := open(t, nil, path)
		got, err := walk(t, in)
		if err != nil {
			t.Fatal(err)
		}
		want := Split(path, []byte(text))
		if len(got) != len(want) {
			t.Fatalf("%s: %d chunks, want %d", name, len(got), len(want))
		}
		for i, w := range want {
			if got[i] != (chunkOf{w.line, string(w.text)}) {
				t.Errorf("%s: chunk %d is %+v, want line %d %q", name, i, got[i], w.line, w.text)
			}
		}
	}
}

// A file that is no longer the one an earlier walk read is an error of
// the later walk, naming the file: one walk's documents would not be the
// other's.
func TestEachRefusesAFileChangedBetweenWalks(t *testing.T) {
	for name, change := range map[string]func(path string) error{
		"rewritten": func(path string) error {
			if err := os.WriteFile(path, []byte("kind: A\n---\nkind: C\n---\nkind: D\n"), 0o644); err != nil {
				return err
			}
			later := time.Now().Add(time.Hour)
			return os.Chtimes(path, later, later)
		},
		"replaced": func(path string) error {
			other := path + ".new"
			if err := os.WriteFile(other, []byte("kind: A\n---\nkind: B\n"), 0o644); err != nil {
				return err
			}
			return os.Rename(other, path)
		},
		"deleted": os.Remove,
	} {
		path := filepath.Join(t.TempDir(), "in.yaml")
		if err := os.WriteFile(path, []byte("kind: A\n---\nkind: B\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		in := open(t, nil, path)
		if _, err := walk(t, in); err != nil {
			t.Fatal(err)
		}
		if err := change(path); err != nil {
			t.Fatal(err)
		}
		if _, err := walk(t, in); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: second walk: %v, want an error naming %s", name, err, path)
		}
	}
}

// Standard input is read once and each walk has its documents; a second
// "-" has nothing left.
func TestEachWalksStandardInputAgain(t *testing.T) {
	in := open(t, strings.NewReader("kind: A\n---\nkind: B\n"), "-", "-")
	walkTwice(t, in, []chunkOf{{1, "kind: A\n"}, {3, "kind: B\n"}, {1, ""}})
}

// EachMentioning passes exactly the documents whose text holds the
// string, wherever it falls in a file's reads.
func TestEachMentioning(t *testing.T) {
	const s = "CustomResourceDefinition"
	long := strings.Repeat("w", 70<<10)
	docs := []string{
		"kind: A\n",
		"kind: " + s + "\n",
		"kind: B\nnote: " + long + "\n", // a line longer than the buffer, without s
		"kind: C\nnote: " + long[:65525] + s + long + "\n", // s across the buffer's end
		"# " + s + "\nkind: D\n",
		"kind: E\n",
	}
	text := strings.Join(docs, "---\n")
	path := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	file := open(t, nil, path)
	for name, in := range map[string]*Input{"file": file, "memory": InputOf(path, []byte(text))} {
		var got []string
		if err := in.EachMentioning(s, func(c Chunk) bool { got = append(got, string(c.text)); return true }); err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 || got[0] != docs[1] || got[1] != docs[3] || got[2] != docs[4] {
			t.Errorf("%s: %d documents mention %s, want documents 1, 3 and 4", name, len(got), s)
		}
	}
}

// sameName gives two texts of one name, as two Kustomizations that build
// one base do.
type sameName struct{}

func (sameName) Texts(string, bool) ([]Text, bool, error) {
	doc := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n")
	return []Text{{Name: "base/a.yaml", Data: doc}, {Name: "base/a.yaml", Data: doc}}, true, nil
}

// TestPlacesAreUnique: no two chunks of a walk share a place, even when
// their files share a name (a walk's decoded documents are handed to the
// next by place).
func TestPlacesAreUnique(t *testing.T) {
	in, err := OpenPaths([]string{"x"}, false, sameName{})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[Place]bool{}
	n := 0
	if err := in.Each(func(c Chunk) bool {
		n++
		if seen[c.Place()] {
			t.Errorf("%+v: twice", c.Place())
		}
		seen[c.Place()] = true
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if n != 2 {
		t.Errorf("%d chunks", n)
	}
}
