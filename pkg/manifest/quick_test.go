package manifest

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"
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
	sameAsKubectl(t, name, text)
	return true
}

// sameAsKubectl fails when the simple reading takes a document and gives
// other JSON or another object than kubectl's reader; it tells whether
// the simple reading took it.
func sameAsKubectl(t *testing.T, name string, text []byte) bool {
	t.Helper()
	js, obj, ok := simpleYAML(text)
	if !ok {
		return false
	}
	wantJS, wantObj := asKubectlReads(text)
	if wantObj == nil {
		t.Fatalf("%s: the simple reading takes what kubectl's reader refuses:\n%s", name, text)
	}
	if !bytes.Equal(js, wantJS) || !reflect.DeepEqual(obj, wantObj) {
		t.Fatalf("%s: simple reading %s, kubectl's reader %s:\n%s", name, js, wantJS, text)
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
	files, quick, simple := 0, 0, 0
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
				if sameAsKubectl(t, path, c.text) {
					simple++
				}
			}
			return nil
		})
	}
	if quick == 0 {
		t.Fatalf("no document of %d files took the quick path", files)
	}
	if simple == 0 {
		t.Fatalf("no document of %d files was simple", files)
	}
	t.Logf("%d files, %d documents read quickly, each as the careful reading; %d of them simple", files, quick, simple)
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
	f.Add([]byte("a:\n- b: 1\n  c: [x]\n- 'q'\nd: \"s\"\ne:\nf: -12\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range splitYAML(data) {
			sameAsCareful(t, "f", c.text, c.line-1)
			sameAsKubectl(t, "f", c.text)
		}
	})
}

// sameAsCarefulJSON fails when a value of a JSON stream that was decoded at
// once (its node left for later) differs from the careful reading: the
// node parsed in place must be an object without a key given twice, with
// the positions of the later node, and the object must be what the
// server's decoder makes of the value. It returns how many were quick.
func sameAsCarefulJSON(t *testing.T, name string, data []byte) int {
	t.Helper()
	quick := 0
	for _, d := range readJSON(name, data) {
		if d.later == nil {
			continue
		}
		quick++
		// Valid JSON that YAML cannot parse (bytes that are not UTF-8, say)
		// is read without positions, both ways.
		careful, _ := positionNode(d.JSON, d.Line, d.Column)
		if careful != nil && checkNode(name, careful) != nil {
			t.Fatalf("%s:%d:%d: decoded at once what the careful reading refuses (%v):\n%s", name, d.Line, d.Column, checkNode(name, careful), d.JSON)
		}
		if !samePositions(d.YAMLNode(), careful) {
			t.Fatalf("%s:%d:%d: the later node differs from the careful one:\n%s", name, d.Line, d.Column, d.JSON)
		}
		var want map[string]any
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(d.JSON, &want); err != nil || !reflect.DeepEqual(d.Object, want) {
			t.Fatalf("%s:%d:%d: object %v, the server's decoder %v (%v)", name, d.Line, d.Column, d.Object, want, err)
		}
	}
	return quick
}

// TestQuickJSONEqualsCareful turns every YAML document of the test data
// and examples into JSON, streamed three ways (indented, one per line, all
// on one line), and reads each stream both ways.
func TestQuickJSONEqualsCareful(t *testing.T) {
	var values [][]byte
	for _, root := range []string{"../../test/testdata", "../../examples"} {
		_ = filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".yaml") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			for _, c := range splitYAML(data) {
				if js, err := sigsyaml.YAMLToJSON(c.text); err == nil && len(js) > 0 && js[0] == '{' {
					values = append(values, js)
				}
			}
			return nil
		})
	}
	if len(values) == 0 {
		t.Fatal("no test data")
	}
	var indented, lines bytes.Buffer
	for _, v := range values {
		_ = json.Indent(&indented, v, "", "  ")
		indented.WriteString("\n")
		lines.Write(v)
		lines.WriteString("\n")
	}
	oneLine := bytes.ReplaceAll(lines.Bytes(), []byte("\n"), []byte("  "))
	for name, stream := range map[string][]byte{"indented.json": indented.Bytes(), "lines.json": lines.Bytes(), "one-line.json": oneLine} {
		if quick := sameAsCarefulJSON(t, name, stream); quick == 0 {
			t.Errorf("%s: no value of %d was decoded at once", name, len(values))
		}
	}
}

// TestQuickJSONDeclines: what a JSON stream leaves to the careful reading,
// and what that says.
func TestQuickJSONDeclines(t *testing.T) {
	for in, want := range map[string]string{
		`{"a": 1, "a": 2}`:           `f:1:10: duplicate key "a" (first at line 1)`,
		`{"a": {"b": 1, "b": 2}}`:    `f:1:16: duplicate key "b" (first at line 1)`,
		"{\"a\": 1}\n[1, 2]":         "f:2:1: expected an object (a mapping with apiVersion and kind), found a list",
		"{\"a\": 1} \"text\"":        `f:1:10: expected an object (a mapping with apiVersion and kind), found the scalar "text"`,
		"{\"a\": 1}\n{\"a\": [1,}\n": "f:2:10: invalid JSON: invalid character '}' looking for beginning of value",
	} {
		_, err := Read("f", []byte(in))
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}

// FuzzQuickJSON: whatever a JSON stream decodes at once, the careful
// reading accepts with the same positions and object.
func FuzzQuickJSON(f *testing.F) {
	f.Add([]byte(`{"apiVersion": "v1", "kind": "A", "spec": {"x": [1, 2.5, "s", null, true]}}`))
	f.Add([]byte("{\"a\": 1}\n  {\"b\":\n {\"c\": \"\\u00e9\"}}"))
	f.Add([]byte(`{"a": 1, "a": 2} {"k": "v"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if looksLikeJSON(data) {
			sameAsCarefulJSON(t, "f", data)
		}
	})
}
