package manifest

import (
	"bytes"
	"regexp"
)

// Chunk is one document of a stream, found but not yet decoded: a YAML
// document between separators, or one value of a JSON stream. Finding the
// documents of a stream is quick; decoding them is the work, done by
// whoever takes each Chunk (on any core).
type Chunk struct {
	name         string
	text         []byte
	size         int // the length of the text (not kept over MaxDocument)
	line, column int // where text starts in the file (1-based)
	source       int // the index of its file in the Input
	json         bool
	// err: the stream breaks off here (a JSON syntax error); nothing
	// after it can be read.
	err *Error
	// decoded are its documents, when an earlier walk decoded it and
	// handed them on (WithDocuments).
	decoded    []Document
	hasDecoded bool
	// rendered: the chunk is an object a source rendered; its documents
	// are placed where it came from.
	rendered *Rendered
}

// Place is where the chunk starts: its file's name, line and column, and
// which of the input's files it is. Walks over one input give the same
// chunk the same place, and no two chunks of a walk share one.
func (c *Chunk) Place() Place { return Place{c.name, c.line, c.column, c.source} }

// Place is where a chunk starts.
type Place struct {
	Name         string
	Line, Column int
	// Source is the index of its file among the input's: texts a source
	// rendered may share a name (a base that two Kustomizations build).
	Source int
}

// WithDocuments is the chunk with docs, the documents its Decode gave in
// an earlier walk: Decode returns them, not decoding again.
func (c Chunk) WithDocuments(docs []Document) Chunk {
	c.decoded, c.hasDecoded = docs, true
	return c
}

// Split finds the documents of data: YAML documents, or a stream of JSON
// values (flow-style YAML that starts like JSON is read as YAML).
func Split(name string, data []byte) []Chunk {
	if looksLikeJSON(data) {
		chunks := splitJSON(name, data)
		if n := len(chunks); n == 0 || chunks[n-1].err == nil || !flowYAML(name, chunks[n-1].err) {
			return chunks
		}
	}
	return splitYAML(name, data)
}

// Mentions tells whether the chunk's text holds s, as written (for a
// quick look before decoding).
func (c *Chunk) Mentions(s string) bool {
	return bytes.Contains(c.text, []byte(s))
}

// Matches tells whether the chunk's text, as written, matches re.
func (c *Chunk) Matches(re *regexp.Regexp) bool {
	return re.Match(c.text)
}

// Decode decodes the chunk: no document for an empty one, a List's items,
// or one Document with Err when it cannot be decoded.
func (c *Chunk) Decode() []Document {
	if c.hasDecoded {
		return c.decoded
	}
	if c.err != nil {
		return c.place([]Document{failed(c.err)})
	}
	var doc Document
	if c.json {
		d, ok := jsonDocument(c.name, c.text, c.line, c.column)
		if !ok {
			return nil
		}
		doc = d
	} else {
		d, err := c.decodeYAML()
		if d == nil && err == nil {
			return nil
		}
		if err != nil {
			doc = failed(templateError(c.name, c.text, c.line-1, err))
			if doc.Line == 0 {
				doc.Line = c.line
			}
		} else {
			doc = *d
		}
	}
	return c.place(expandLists([]Document{doc}))
}

// place puts the documents of a rendered object where it came from: at
// its file's line, its fields at the file's nodes (not the rendered
// text's), with what rendered it.
func (c *Chunk) place(docs []Document) []Document {
	r := c.rendered
	if r == nil {
		return docs
	}
	for i := range docs {
		d := &docs[i]
		d.Line, d.Column, d.Node, d.later = r.Line, r.Column, r.Node, nil
		d.Via, d.Namespace = r.Via, r.Namespace
		d.Warnings = append(d.Warnings, r.Warnings...)
		if d.Err != nil && r.Err == "" {
			// The rendered text's own positions are no place in the file.
			d.Err.Line, d.Err.Column = r.Line, r.Column
		}
	}
	return docs
}

func (c *Chunk) decodeYAML() (*Document, error) {
	if c.size > MaxDocument {
		return nil, tooLarge(c.name, c.line, c.size)
	}
	return decodeYAML(c.name, c.text, c.line-1)
}
