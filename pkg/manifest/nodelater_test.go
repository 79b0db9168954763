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

// sameAsNodeFirst fails when the reading that leaves the node for later
// differs from the reading that parses it first: both must accept the
// document, with the same JSON, object, place and YAML node positions. It
// tells whether the node was left for later.
func sameAsNodeFirst(t *testing.T, name string, text []byte, offset int) bool {
	t.Helper()
	later := decodeNodeLater(name, text, offset)
	if later == nil {
		return false
	}
	first, err := decodeNodeFirst(name, text, offset)
	if err != nil || first == nil {
		t.Fatalf("%s: kubectl's reader accepts what parsing the node first refuses (%v):\n%s", name, err, text)
	}
	if !bytes.Equal(later.JSON, first.JSON) || later.Line != first.Line || later.Column != first.Column || !reflect.DeepEqual(later.object, first.object) {
		t.Fatalf("%s: node later %d:%d %s, node first %d:%d %s", name, later.Line, later.Column, later.JSON, first.Line, first.Column, first.JSON)
	}
	if first.Node != nil && !samePositions(later.YAMLNode(), first.Node) {
		t.Fatalf("%s: the later node differs from the one parsed first", name)
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

// eachYAMLFile calls f with each YAML file under roots (those that cannot
// be read are not test data).
func eachYAMLFile(roots []string, f func(path string, data []byte)) {
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") {
				return nil
			}
			if data, err := os.ReadFile(path); err == nil {
				f(path, data)
			}
			return nil
		})
	}
}

// TestNodeLaterEqualsNodeFirst reads every YAML document of the
// repository's test data and examples, and of the shared corpus when
// KUBECTL_CRD_CORPUS names it, both ways.
func TestNodeLaterEqualsNodeFirst(t *testing.T) {
	roots := []string{"../../test/testdata", "../../examples"}
	if dir := os.Getenv("KUBECTL_CRD_CORPUS"); dir != "" {
		roots = append(roots, dir)
	}
	files, later := 0, 0
	eachYAMLFile(roots, func(path string, data []byte) {
		files++
		for _, c := range splitYAML("f", data) {
			if sameAsNodeFirst(t, path, c.text, c.line-1) {
				later++
			}
		}
	})
	if later == 0 {
		t.Fatalf("no document of %d files had its node left for later", files)
	}
	t.Logf("%d files, %d documents with the node left for later, each as read with the node first", files, later)
}

// TestNodeFirstWhenNeeded: what kubectl's reader alone cannot read, or
// place, is parsed for its node first.
func TestNodeFirstWhenNeeded(t *testing.T) {
	for _, text := range []string{
		"a: 1\na: 2\n",           // a key given twice
		"1: a\n\"1\": b\n",       // keys equal only as JSON strings
		"- a\n- b\n",             // a list document
		"hello\n",                // a scalar
		"%YAML 1.1\n---\na: 1\n", // a directive
		"\ta: 1\n",               // a tab
		"a: [1\n",                // broken
	} {
		if d := decodeNodeLater("f", []byte(text), 0); d != nil {
			t.Errorf("node left for later for %q: %s", text, d.JSON)
		}
	}
}

// FuzzYAMLNodeLater: whatever kubectl's reader takes with the node left
// for later, parsing the node first accepts with the same JSON, object
// and positions.
func FuzzYAMLNodeLater(f *testing.F) {
	seeds(f, "../../test/testdata/crds", "../../test/testdata/objects", "../../test/testdata/bad", "../../examples/objects/valid", "../../examples/objects/invalid")
	f.Add([]byte("a: 1\nb: {c: [1, 2]}\n"))
	f.Add([]byte("{a: 1, b: yes, c: 0777}\n"))
	f.Add([]byte("a:\n- b: 1\n  c: [x]\n- 'q'\nd: \"s\"\ne:\nf: -12\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range splitYAML("f", data) {
			sameAsNodeFirst(t, "f", c.text, c.line-1)
		}
	})
}

// sameAsNodeFirstJSON fails when a value of a JSON stream that was decoded at
// once (its node left for later) differs from parsing its node first: the
// node parsed in place must be an object without a key given twice, with
// the positions of the later node, and the object must be what the
// server's decoder makes of the value. It returns how many were decoded at
// once.
func sameAsNodeFirstJSON(t *testing.T, name string, data []byte) int {
	t.Helper()
	later := 0
	for _, c := range splitJSON(name, data) {
		if c.err != nil {
			continue
		}
		d, ok := jsonDocument(name, c.text, c.line, c.column)
		if !ok || d.later == nil {
			continue
		}
		later++
		// Valid JSON that YAML cannot parse (bytes that are not UTF-8, say)
		// is read without positions, both ways.
		first, _ := positionNode(d.JSON, d.Line, d.Column)
		if first != nil && checkNode(name, first) != nil {
			t.Fatalf("%s:%d:%d: decoded at once what parsing the node first refuses (%v):\n%s", name, d.Line, d.Column, checkNode(name, first), d.JSON)
		}
		if !samePositions(d.YAMLNode(), first) {
			t.Fatalf("%s:%d:%d: the later node differs from the one parsed first:\n%s", name, d.Line, d.Column, d.JSON)
		}
		var want map[string]any
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(d.JSON, &want); err != nil || !reflect.DeepEqual(d.object, want) {
			t.Fatalf("%s:%d:%d: object %v, the server's decoder %v (%v)", name, d.Line, d.Column, d.object, want, err)
		}
	}
	return later
}

// TestJSONNodeLaterEqualsNodeFirst turns every YAML document of the test data
// and examples into JSON, streamed three ways (indented, one per line, all
// on one line), and reads each stream both ways.
func TestJSONNodeLaterEqualsNodeFirst(t *testing.T) {
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
			for _, c := range splitYAML("f", data) {
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
		if later := sameAsNodeFirstJSON(t, name, stream); later == 0 {
			t.Errorf("%s: no value of %d was decoded at once", name, len(values))
		}
	}
}

// TestJSONNodeFirstWhenNeeded: what a JSON stream parses for its node
// first, and what that says.
func TestJSONNodeFirstWhenNeeded(t *testing.T) {
	for in, want := range map[string]string{
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

// FuzzJSONNodeLater: whatever a JSON stream decodes at once, parsing the
// node first accepts with the same positions and object.
func FuzzJSONNodeLater(f *testing.F) {
	f.Add([]byte(`{"apiVersion": "v1", "kind": "A", "spec": {"x": [1, 2.5, "s", null, true]}}`))
	f.Add([]byte("{\"a\": 1}\n  {\"b\":\n {\"c\": \"\\u00e9\"}}"))
	f.Add([]byte(`{"a": 1, "a": 2} {"k": "v"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if looksLikeJSON(data) {
			sameAsNodeFirstJSON(t, "f", data)
		}
	})
}
