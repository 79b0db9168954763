package manifest

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Position returns the line and column of the field at path (as the server
// writes paths: "spec.ports[1].name", "metadata.labels[app]",
// "spec.limits.example.com/gpu"), or of its nearest ancestor the document
// has; the document's own position when no node is known. The path is
// read against the document: a map's key may hold dots, slashes or
// brackets (label names, resource names), so at each mapping the longest
// key the rest of the path starts with (followed by a separator or the
// end) is the step, and only then a bracketed key ("[app]"). In a list, a
// step is an index ("[1]") or a list-map entry ("[name=x]").
func (d *Document) Position(path string) (line, column int) {
	line, column = d.Line, d.Column
	n := d.YAMLNode()
	rest := path
	for rest != "" && n != nil {
		var next *yaml.Node
		var used int
		switch n.Kind {
		case yaml.MappingNode:
			var key *yaml.Node
			key, next, used = mappingStep(n, rest)
			if key != nil {
				line, column = key.Line, key.Column
			}
		case yaml.SequenceNode:
			next, used = sequenceStep(n, rest)
			if next != nil {
				line, column = next.Line, next.Column
			}
		case yaml.AliasNode:
			next = n.Alias
		}
		if next == nil {
			break
		}
		n, rest = next, strings.TrimPrefix(rest[used:], ".")
	}
	return line, column
}

// mappingStep finds the key of a mapping that the path rest starts with:
// the longest key followed by ".", "[" or the end, else a bracketed key.
// It returns the key, its value and how much of rest the step used.
func mappingStep(n *yaml.Node, rest string) (key, value *yaml.Node, used int) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i].Value
		if len(k) <= used || !strings.HasPrefix(rest, k) {
			continue
		}
		if after := rest[len(k):]; after == "" || after[0] == '.' || after[0] == '[' {
			key, value, used = n.Content[i], n.Content[i+1], len(k)
		}
	}
	if key != nil {
		return key, value, used
	}
	inner, after, ok := bracketed(rest)
	if !ok {
		return nil, nil, 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == inner {
			return n.Content[i], n.Content[i+1], len(rest) - len(after)
		}
	}
	return nil, nil, 0
}

// sequenceStep finds the item of a list that rest starts with: "[N]", or
// "[KEY=VALUE]" for the item (a map) whose KEY is VALUE.
func sequenceStep(n *yaml.Node, rest string) (item *yaml.Node, used int) {
	inner, after, ok := bracketed(rest)
	if !ok {
		return nil, 0
	}
	used = len(rest) - len(after)
	if i, err := strconv.Atoi(inner); err == nil {
		if i >= 0 && i < len(n.Content) {
			return n.Content[i], used
		}
		return nil, 0
	}
	k, v, ok := strings.Cut(inner, "=")
	if !ok {
		return nil, 0
	}
	for _, it := range n.Content {
		if it.Kind != yaml.MappingNode {
			continue
		}
		for i := 0; i+1 < len(it.Content); i += 2 {
			if it.Content[i].Value == k && it.Content[i+1].Value == v {
				return it, used
			}
		}
	}
	return nil, 0
}

// bracketed splits "[inner]after" (false when rest does not start so).
func bracketed(rest string) (inner, after string, ok bool) {
	if !strings.HasPrefix(rest, "[") {
		return "", "", false
	}
	j := strings.IndexByte(rest, ']')
	if j < 0 {
		return "", "", false
	}
	return rest[1:j], rest[j+1:], true
}

// shiftPositions moves nodes down by lines, and those on the first line
// right by columns: from where a document parsed on its own puts them to
// their place in the file.
func shiftPositions(n *yaml.Node, lines, columns int) {
	if lines == 0 && columns == 0 {
		return
	}
	if n.Line == 1 {
		n.Column += columns
	}
	n.Line += lines
	for _, c := range n.Content {
		shiftPositions(c, lines, columns)
	}
}
