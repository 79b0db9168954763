package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	yaml "go.yaml.in/yaml/v3"
	sigsjson "sigs.k8s.io/json"
)

// splitJSON finds the values of a stream of JSON values (where one ends
// is known only by reading it), each at its line and column of the file.
// A syntax error ends the stream: it comes back as the last chunk, with
// its error.
func splitJSON(name string, data []byte) []Chunk {
	var chunks []Chunk
	dec := json.NewDecoder(bytes.NewReader(data))
	lines := lineCounter{data: data, line: 1}
	var prev int
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			return chunks
		}
		if err != nil {
			e := jsonError(name, data, dec.InputOffset(), err).(*Error)
			return append(chunks, Chunk{name: name, line: e.Line, column: e.Column, err: e})
		}
		end := int(dec.InputOffset())
		start := prev + leadingSpace(data[prev:end])
		line, column := lines.at(start)
		chunks = append(chunks, Chunk{name: name, text: data[start:end], line: line, column: column, json: true})
		prev = end
	}
}

// jsonDocument decodes one value of a stream; false for null, which is no
// document. An object with no key given twice is decoded at once, as the
// server decodes it, and positioned only when a position is asked for;
// anything else is parsed for its node, which says what is wrong.
func jsonDocument(name string, text []byte, line, column int) (Document, bool) {
	if string(text) == "null" {
		return Document{}, false
	}
	if len(text) > MaxDocument {
		return failed(tooLarge(name, line, len(text))), true
	}
	doc := Document{File: name, Line: line, Column: column, JSON: text}
	var obj map[string]any
	if dups, err := sigsjson.UnmarshalStrict(text, &obj, sigsjson.DisallowDuplicateFields); err == nil && len(dups) == 0 && obj != nil {
		doc.object = obj
		doc.later = &laterNode{text: text, offset: line - 1, columns: column - 1}
		return doc, true
	}
	if node, err := positionNode(text, line, column); err == nil && node != nil {
		if err := checkNode(name, node); err != nil {
			return failed(err), true
		}
		doc.Node = node
		doc.Warnings, _ = keyWarnings(name, node, jsonKeys{})
	}
	if len(doc.Warnings) > 0 {
		// As kubectl sends it: decoded (the last value of a key wins)
		// and encoded again.
		if sigsjson.UnmarshalCaseSensitivePreserveInts(text, &obj) == nil && obj != nil {
			if js, err := json.Marshal(obj); err == nil {
				doc.JSON, doc.object = js, obj
			}
		}
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
