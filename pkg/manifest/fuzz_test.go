package manifest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// seeds adds every test data file of the repository to a fuzz corpus.
func seeds(f *testing.F, dirs ...string) {
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
}

// FuzzRead: reading never panics; every document either has an error
// with a place or valid JSON with positions that can be looked up; the
// strict reader fails exactly when a document failed.
func FuzzRead(f *testing.F) {
	seeds(f, "../../test/testdata/crds", "../../test/testdata/objects", "../../test/testdata/bad", "../../examples/objects/valid", "../../examples/objects/invalid")
	f.Add([]byte("{a: 1}\n"))
	f.Add([]byte("{\"kind\": \"List\", \"items\": [1]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs := ReadLenient("f", data)
		failed := false
		for _, d := range docs {
			if d.Err != nil {
				failed = true
				if d.Err.File != "f" || d.Err.Msg == "" {
					t.Fatalf("error without a place or message: %+v", d.Err)
				}
				continue
			}
			if !json.Valid(d.JSON) {
				t.Fatalf("document at %s is not JSON: %q", d.Pos(), d.JSON)
			}
			for _, path := range []string{"metadata.name", "spec.a[0].b", "metadata.labels[x]", "items[3]", ""} {
				if line, _ := d.Position(path); line < 1 && d.Node != nil {
					t.Fatalf("position of %q: line %d", path, line)
				}
			}
		}
		if _, err := Read("f", data); (err != nil) != failed {
			t.Fatalf("Read error %v, lenient failed %v", err, failed)
		}
	})
}
