package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	yaml "go.yaml.in/yaml/v3"
	sigsjson "sigs.k8s.io/json"
)

// jsonValue is one value of a JSON stream: data[start:end], at line and
// column of the file.
type jsonValue struct {
	start, end, line, column int
}

// readJSON decodes a stream of JSON values. The values are found one after
// the other (where one ends is known only by reading it), then decoded on
// every core. Positions come from parsing a value as YAML (JSON is YAML),
// moved to where the value starts in the file.
func readJSON(name string, data []byte) []Document {
	var values []jsonValue
	var broken *Document // the syntax error that ends the stream
	dec := json.NewDecoder(bytes.NewReader(data))
	lines := lineCounter{data: data, line: 1}
	var prev int
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			d := failed(jsonError(name, data, dec.InputOffset(), err))
			broken = &d
			break
		}
		end := int(dec.InputOffset())
		start := prev + leadingSpace(data[prev:end])
		line, column := lines.at(start)
		values = append(values, jsonValue{start: start, end: end, line: line, column: column})
		prev = end
	}
	out := decodeEach(len(values), func(i int) (Document, bool) { return jsonDocument(name, data, values[i]) })
	if broken != nil {
		out = append(out, *broken)
	}
	return out
}

// jsonDocument decodes one value of a stream; false for null, which is no
// document. An object with no key given twice is decoded at once, as the
// server decodes it, and positioned only when a position is asked for;
// anything else is parsed for its node, which says what is wrong.
func jsonDocument(name string, data []byte, v jsonValue) (Document, bool) {
	text := data[v.start:v.end]
	if string(text) == "null" {
		return Document{}, false
	}
	if len(text) > MaxDocument {
		return failed(tooLarge(name, v.line, len(text))), true
	}
	doc := Document{File: name, Line: v.line, Column: v.column, JSON: text}
	var obj map[string]any
	if dups, err := sigsjson.UnmarshalStrict(text, &obj, sigsjson.DisallowDuplicateFields); err == nil && len(dups) == 0 && obj != nil {
		doc.object = obj
		doc.later = &laterNode{text: text, offset: v.line - 1, columns: v.column - 1}
		return doc, true
	}
	if node, err := positionNode(text, v.line, v.column); err == nil && node != nil {
		if err := checkNode(name, node); err != nil {
			return failed(err), true
		}
		doc.Node = node
	}
	return doc, true
}

func leadingSpace(b []byte) int {
	return len(b) - len(bytes.TrimLeft(b, " \t\r\n"))
}

// positionNode parses one JSON value as YAML (JSON is YAML) for the
// positions of its nodes, moved to where the value starts in the file.
func positionNode(value []byte, line, column int) (*yaml.Node, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(value, &root); err != nil || len(root.Content) == 0 {
		return nil, err
	}
	shiftPositions(root.Content[0], line-1, column-1)
	return root.Content[0], nil
}

// lineCounter gives the line and column of offsets in data, each offset
// asked for at or after the one before: a stream's lines are counted once.
type lineCounter struct {
	data      []byte
	offset    int // counted up to here
	line      int // the line at offset
	lineStart int // the offset where that line starts
}

func (c *lineCounter) at(offset int) (line, column int) {
	offset = min(offset, len(c.data))
	for {
		i := bytes.IndexByte(c.data[c.offset:offset], '\n')
		if i < 0 {
			break
		}
		c.line++
		c.lineStart = c.offset + i + 1
		c.offset = c.lineStart
	}
	c.offset = offset
	return c.line, offset - c.lineStart + 1
}

func lineColumn(data []byte, offset int) (int, int) {
	c := lineCounter{data: data, line: 1}
	return c.at(offset)
}

func jsonError(name string, data []byte, offset int64, err error) error {
	var syn *json.SyntaxError
	if errors.As(err, &syn) && syn.Offset > 0 {
		offset = syn.Offset - 1 // the offending byte, not the one after it
	}
	line, col := lineColumn(data, int(offset))
	return &Error{File: name, Line: line, Column: col, Msg: "invalid JSON: " + jsonMessage(err)}
}
