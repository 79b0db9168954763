package manifest

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Position returns the line and column of the field at path (as the server
// writes paths: "spec.ports[1].name", "metadata.labels[app]"), or of its
// nearest ancestor the document has; the document's own position when no
// node is known.
func (d *Document) Position(path string) (line, column int) {
	line, column = d.Line, d.Column
	n := d.YAMLNode()
	for _, step := range splitPath(path) {
		if n == nil {
			break
		}
		var next *yaml.Node
		switch {
		case step.index >= 0 && n.Kind == yaml.SequenceNode:
			if step.index < len(n.Content) {
				next = n.Content[step.index]
			}
		case n.Kind == yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == step.key {
					line, column = n.Content[i].Line, n.Content[i].Column
					next = n.Content[i+1]
					break
				}
			}
		}
		if next == nil {
			break
		}
		if step.index >= 0 {
			line, column = next.Line, next.Column
		}
		n = next
	}
	return line, column
}

type pathStep struct {
	key   string
	index int // -1 for a key
}

// splitPath splits "a.b[2].c[key]" into a, b, 2, c, key.
func splitPath(path string) []pathStep {
	var out []pathStep
	for _, part := range strings.Split(path, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			if i < 0 {
				out = append(out, pathStep{key: part, index: -1})
				break
			}
			if i > 0 {
				out = append(out, pathStep{key: part[:i], index: -1})
			}
			j := strings.IndexByte(part[i:], ']')
			if j < 0 {
				break
			}
			inner := part[i+1 : i+j]
			if n, err := strconv.Atoi(inner); err == nil {
				out = append(out, pathStep{index: n})
			} else {
				out = append(out, pathStep{key: inner, index: -1})
			}
			part = part[i+j+1:]
		}
	}
	return out
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
