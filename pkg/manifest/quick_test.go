package manifest

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// sameAsCareful fails when the quick reading of a YAML document differs
// from the careful one: both must accept it, with the same JSON, the same
// place and the same YAML node positions.
func sameAsCareful(t *testing.T, name string, text []byte, offset int) bool {
	t.Helper()
	q, _, _ := quickYAML(name, text, offset)
	if q == nil {
		return false
	}
	c, err := carefulYAML(name, text, offset, nil, nil)
	if err != nil || c == nil {
		t.Fatalf("%s: the quick reading accepts what the careful one refuses (%v):\n%s", name, err, text)
	}
	if !bytes.Equal(q.JSON, c.JSON) || q.Line != c.Line || q.Column != c.Column {
		t.Fatalf("%s: quick %d:%d %s, careful %d:%d %s", name, q.Line, q.Column, q.JSON, c.Line, c.Column, c.JSON)
	}
	if c.Node != nil && !samePositions(q.YAMLNode(), c.Node) {
		t.Fatalf("%s: the later node differs from the careful one", name)
	}
	return true
}

func samePositions(a, b *yaml.Node) bool {
	if a == nil || b == nil {
		return a == b
	}
	if a.Line != b.Line || a.Column != b.Column || a.Value != b.Value || len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		if !samePositions(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

// TestQuickEqualsCareful reads every YAML document of the repository's
// test data and examples, and of the shared corpus when KUBECTL_CRD_CORPUS
// names it, both ways.
func TestQuickEqualsCareful(t *testing.T) {
	roots := []string{"../../test/testdata", "../../examples"}
	if dir := os.Getenv("KUBECTL_CRD_CORPUS"); dir != "" {
		roots = append(roots, dir)
	}
	files, quick := 0, 0
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			files++
			for _, c := range splitYAML(data) {
				if sameAsCareful(t, path, c.text, c.line-1) {
					quick++
				}
			}
			return nil
		})
	}
	if quick == 0 {
		t.Fatalf("no document of %d files took the quick path", files)
	}
	t.Logf("%d files, %d documents read quickly, each as the careful reading", files, quick)
}

// TestQuickDeclines: what the quick path must leave to the careful one.
func TestQuickDeclines(t *testing.T) {
	for _, text := range []string{
		"a: 1\na: 2\n",                    // a key given twice
		"1: a\n\"1\": b\n",                // keys equal only as JSON strings
		"kind: List\nitems:\n- kind: A\n", // a list: items need nodes
		"base: &b {x: 1}\nc:\n  <<: *b\n", // a merge key
		"- a\n- b\n",                      // a list document
		"hello\n",                         // a scalar
		"%YAML 1.1\n---\na: 1\n",          // a directive
		"\ta: 1\n",                        // a tab
		"a: [1\n",                         // broken
	} {
		if d, _, _ := quickYAML("f", []byte(text), 0); d != nil {
			t.Errorf("quick path took %q: %s", text, d.JSON)
		}
	}
}

// FuzzQuickYAML: whatever the quick path accepts, the careful path
// accepts with the same JSON and positions.
func FuzzQuickYAML(f *testing.F) {
	seeds(f, "../../test/testdata/crds", "../../test/testdata/objects", "../../test/testdata/bad", "../../examples/objects/valid", "../../examples/objects/invalid")
	f.Add([]byte("a: 1\nb: {c: [1, 2]}\n"))
	f.Add([]byte("{a: 1, b: yes, c: 0777}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range splitYAML(data) {
			sameAsCareful(t, "f", c.text, c.line-1)
		}
	})
}
