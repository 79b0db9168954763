package manifest

import (
	"slices"
	"strings"
	"testing"
)

func TestReadYAMLPositions(t *testing.T) {
	in := `# leading comment
apiVersion: v1
kind: A
metadata:
  name: first
---
---   # an empty document
---
  apiVersion: v1
  kind: B
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: C
- {apiVersion: v1, kind: D}
`
	docs, err := Read("in.yaml", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		kind      string
		line, col int
	}{{"A", 2, 1}, {"B", 9, 3}, {"C", 15, 3}, {"D", 17, 3}}
	if len(docs) != len(want) {
		t.Fatalf("got %d documents, want %d", len(docs), len(want))
	}
	for i, w := range want {
		d := docs[i]
		if d.TypeMeta().Kind != w.kind || d.Line != w.line || d.Column != w.col || d.File != "in.yaml" {
			t.Errorf("document %d: %s at %s, want %s at in.yaml:%d:%d", i, d.TypeMeta().Kind, d.Pos(), w.kind, w.line, w.col)
		}
	}
	if got := string(docs[0].JSON); got != `{"apiVersion":"v1","kind":"A","metadata":{"name":"first"}}` {
		t.Errorf("JSON of the first document: %s", got)
	}
}

func TestReadJSONStream(t *testing.T) {
	in := "{\"apiVersion\": \"v1\",\n \"kind\": \"A\"}\n\n  {\"kind\": \"B\",\n   \"spec\": {\"x\": 1}}\n"
	docs, err := Read("in.json", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 {
		t.Fatalf("got %d documents", len(docs))
	}
	if docs[1].Line != 4 || docs[1].Column != 3 || docs[1].TypeMeta().Kind != "B" {
		t.Errorf("second value at %s kind %q", docs[1].Pos(), docs[1].TypeMeta().Kind)
	}
	// The value starts on column 3 of its line: nodes on that line move
	// right, nodes on later lines do not.
	if kind := childNode(docs[1].YAMLNode(), "kind"); kind == nil || kind.Line != 4 || kind.Column != 12 {
		t.Errorf("kind node position: %+v", kind)
	}
	spec := childNode(docs[1].YAMLNode(), "spec")
	if spec == nil || spec.Line != 5 || spec.Column != 12 {
		t.Errorf("spec node position: %+v", spec)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"unclosed flow sequence", "a: 1\nb: [x\n", "f:2: invalid YAML: did not find expected ',' or ']'"},
		{"bad indentation", "a: 1\nb:\n  c: 1\n d: 2\n", "f:4: invalid YAML: did not find expected key"},
		{"mapping in scalar", "a: 1\nb: c: d\n", "f:2: invalid YAML: mapping values are not allowed in this context"},
		{"tab indentation", "a: 1\n\tb: 2\n", "f:2: invalid YAML: found a tab character that violates indentation"},
		{"error in a later document", "a: 1\n---\nb: 1\nc: [\n", "f:5: invalid YAML: did not find expected node content"},
		{"scalar document", "just a string\n", `f:1:1: expected an object (a mapping with apiVersion and kind), found the scalar "just a string"`},
		{"list document", "- a: 1\n", "f:1:1: expected an object (a mapping with apiVersion and kind), found a list"},
		{"invalid JSON", "{\"a\": 1,\n \"b\": }\n", "f:2:7: invalid JSON: invalid character '}' looking for beginning of value"},
		{"list item not an object", "kind: List\nitems:\n- 3\n", "f:3:3: items[0]: expected an object, found the scalar \"3\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Read("f", []byte(tt.in))
			if err == nil || err.Error() != tt.want {
				t.Errorf("error %v, want %s", err, tt.want)
			}
		})
	}
}

func TestReadAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n")
	prev := "a"
	for _, n := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		b.WriteString(n + ": &" + n + " [*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + ",*" + prev + "]\n")
		prev = n
	}
	_, err := Read("bomb.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "bomb.yaml") {
		t.Fatalf("an alias bomb was accepted or not placed: %v", err)
	}
}

func TestEmptyInput(t *testing.T) {
	for _, in := range []string{"", "\n\n", "# only a comment\n", "---\n---\n", "null\n"} {
		docs, err := Read("f", []byte(in))
		if err != nil || len(docs) != 0 {
			t.Errorf("%q: %d documents, error %v", in, len(docs), err)
		}
	}
}

func TestPosition(t *testing.T) {
	in := "apiVersion: v1\nkind: X\nmetadata:\n  labels:\n    app: web\nspec:\n  ports:\n  - name: a\n  - {name: b, port: 80}\n"
	docs, err := Read("f", []byte(in))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string][2]int{
		"spec.ports[1].port":   {9, 15},
		"spec.ports[1]":        {9, 5},
		"spec.ports[0].name":   {8, 5},
		"metadata.labels[app]": {5, 5},
		"spec.ports[7].name":   {7, 3},
		"spec.nothing":         {6, 1},
		"":                     {1, 1},
	} {
		if l, c := docs[0].Position(path); l != want[0] || c != want[1] {
			t.Errorf("%q at %d:%d, want %d:%d", path, l, c, want[0], want[1])
		}
	}
}

// TestDuplicateKeysWarn: a key given twice is a warning at its place, and
// the document is what kubectl sends (the last value), in YAML and JSON.
func TestDuplicateKeysWarn(t *testing.T) {
	for _, tt := range []struct {
		name, in string
		json     string
		warnings []string
	}{
		{"yaml", "a: 1\nb:\n  c: 1\n  c: 2\na: 3\n", `{"a":3,"b":{"c":2}}`, []string{
			`f:4:3: duplicate key "c" (first at line 3)`,
			`f:5:1: duplicate key "a" (first at line 1)`,
		}},
		{"json", "{\"a\": 1,\n \"b\": {\"c\": 1, \"c\": [2]}}", `{"a":1,"b":{"c":[2]}}`, []string{
			`f:2:16: duplicate key "c" (first at line 2)`,
		}},
		{"in a list", "items:\n- a: 1\n  a: 2\n", `{"items":[{"a":2}]}`, []string{
			`f:3:3: duplicate key "a" (first at line 2)`,
		}},
		{"none", "a: 1\nb: {a: 2}\n", `{"a":1,"b":{"a":2}}`, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := Read("f", []byte(tt.in))
			if err != nil || len(docs) != 1 {
				t.Fatalf("Read: %d documents, %v", len(docs), err)
			}
			var got []string
			for _, w := range docs[0].Warnings {
				got = append(got, w.Error())
			}
			if !slices.Equal(got, tt.warnings) {
				t.Errorf("warnings %q, want %q", got, tt.warnings)
			}
			if string(docs[0].JSON) != tt.json {
				t.Errorf("JSON %s, want %s", docs[0].JSON, tt.json)
			}
		})
	}
}
