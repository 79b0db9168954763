package manifest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// FuzzMapKeyPositions: map keys with dots, slashes, brackets, spaces and
// quotes, written as block YAML, flow YAML and JSON. The position of each
// field path the server would write (keys joined with dots) lies on a key
// whose path is that path: on the field the path names, whatever the key
// holds.
func FuzzMapKeyPositions(f *testing.F) {
	f.Add("example.com/gpu\nnvidia.com/mig.1g\ncpu")
	f.Add("a[0]\na\na.v")
	f.Add("app.kubernetes.io/name\n'quoted'\n\"double\"")
	f.Add("with space\n[x]\nx]")
	f.Add("a.b\na\na.b.c")
	f.Fuzz(func(t *testing.T, list string) {
		m := map[string]any{}
		for i, k := range strings.Split(list, "\n") {
			if k != "" && i < 8 && utf8.ValidString(k) {
				m[k] = map[string]any{"v": i}
			}
		}
		obj := map[string]any{"apiVersion": "v1", "kind": "X", "spec": map[string]any{"m": m}}
		block, err := yaml.Marshal(obj)
		if err != nil {
			return // not text YAML can write
		}
		jsonText, err := json.MarshalIndent(obj, "", "  ")
		if err != nil {
			return
		}
		var flow yaml.Node
		if err := yaml.Unmarshal(block, &flow); err != nil {
			t.Fatal(err)
		}
		flowStyle(&flow)
		flowText, err := yaml.Marshal(&flow)
		if err != nil {
			t.Fatal(err)
		}
		for _, text := range [][]byte{block, flowText, jsonText} {
			docs, err := Read("f", text)
			if err != nil || len(docs) != 1 {
				return // a key the reader refuses (as kubectl would)
			}
			d := &docs[0]
			if d.YAMLNode() == nil {
				continue // positions unknown: the document's own is given
			}
			at := keyPaths(d.YAMLNode())
			for k := range m {
				for _, path := range []string{"spec.m." + k, "spec.m." + k + ".v"} {
					line, column := d.Position(path)
					if !slices.Contains(at[path], [2]int{line, column}) {
						t.Fatalf("%q: at %d:%d, not on a key of that path (%v) in\n%s", path, line, column, at[path], text)
					}
				}
			}
		}
	})
}

// keyPaths maps each path the server would write, keys joined with dots,
// to the positions of the keys that end it.
func keyPaths(n *yaml.Node) map[string][][2]int {
	out := map[string][][2]int{}
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			path := k.Value
			if prefix != "" {
				path = prefix + "." + k.Value
			}
			out[path] = append(out[path], [2]int{k.Line, k.Column})
			walk(n.Content[i+1], path)
		}
	}
	walk(n, "")
	return out
}

// flowStyle writes every mapping of n in flow style.
func flowStyle(n *yaml.Node) {
	if n.Kind == yaml.MappingNode {
		n.Style = yaml.FlowStyle
	}
	for _, c := range n.Content {
		flowStyle(c)
	}
}

// TestPositionSteps: list indexes, list-map entries and bracketed keys.
func TestPositionSteps(t *testing.T) {
	docs, err := Read("f", []byte(`spec:
  ports:
  - name: http
    port: 80
  - name: https
    port: 443
  labels:
    app: x
    a.b: y
`))
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"spec.ports[1].port":         "6:5",
		"spec.ports[name=https]":     "5:5",
		"spec.ports[name=http].port": "4:5",
		"spec.labels[app]":           "8:5",
		"spec.labels.a.b":            "9:5",
		"spec.labels[a.b]":           "9:5",
		"spec.labels.nosuch":         "7:3",
		"spec.ports[9]":              "2:3",
	} {
		if l, c := docs[0].Position(path); fmt.Sprintf("%d:%d", l, c) != want {
			t.Errorf("%s: %d:%d, want %s", path, l, c, want)
		}
	}
}
