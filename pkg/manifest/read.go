package manifest

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
)

// Read decodes every object in data, which holds one or more YAML documents
// or a stream of JSON values. Lists (kind List or any *List with items) are
// expanded into their items. Empty documents are skipped. name is used in
// positions and errors.
func Read(name string, data []byte) ([]Document, error) {
	return strict(readLenient(name, data), nil)
}

// ReadLenient decodes data as Read does, but keeps documents that cannot be
// decoded, with Err set (see readPathsLenient).
func ReadLenient(name string, data []byte) []Document { return readLenient(name, data) }

// readLenient decodes data as Read does, but a document that cannot be
// decoded becomes a Document with Err set and the documents after it are
// still read (in a JSON stream, nothing after a syntax error can be).
// Documents are decoded on every core.
func readLenient(name string, data []byte) []Document {
	return decodeAll(Split(name, data))
}

// decodeAll decodes chunks on every core, and returns their documents in
// order.
func decodeAll(chunks []Chunk) []Document {
	decoded := make([][]Document, len(chunks))
	parallel.Each(len(chunks), 64, func(i int) { decoded[i] = chunks[i].Decode() })
	var docs []Document
	for _, d := range decoded {
		docs = append(docs, d...)
	}
	return docs
}

// flowYAML tells whether what failed to read as JSON is flow-style YAML
// ("{apiVersion: v1, ...}"): a key without quotes in a file not named
// .json. (Other JSON errors stay errors: read as YAML, broken JSON can
// mean something else.)
func flowYAML(name string, err *Error) bool {
	return !strings.HasSuffix(strings.ToLower(name), ".json") &&
		strings.Contains(err.Msg, "looking for beginning of object key string")
}

// strict returns the first document's error as the error, or docs.
func strict(docs []Document, err error) ([]Document, error) {
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		if d.Err != nil {
			return nil, d.Err
		}
	}
	return docs, nil
}

// failed is a document that could not be decoded.
func failed(err error) Document {
	e, ok := err.(*Error)
	if !ok {
		e = &Error{Msg: err.Error()}
	}
	return Document{File: e.File, Line: e.Line, Column: e.Column, Err: e}
}

func looksLikeJSON(data []byte) bool {
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// MaxDocument is the size of the largest document read, 64 MiB: the API
// server accepts objects of up to 3 MiB as JSON, so a larger document
// cannot be one it would take, and parsing it would only cost memory.
const MaxDocument = 64 << 20

func tooLarge(name string, line, size int) error {
	return &Error{File: name, Line: line, Msg: fmt.Sprintf(
		"document of %d MiB not read: documents over %d MiB cannot be objects the API server accepts (3 MiB as JSON)", size>>20, MaxDocument>>20)}
}
