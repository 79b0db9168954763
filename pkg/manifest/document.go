// Package manifest reads Kubernetes objects from user input (files,
// directories, standard input) and remembers where each one came from, so
// that every message can name the file, line and column it is about.
package manifest

import (
	"encoding/json"
	"fmt"
	"sync"

	yaml "go.yaml.in/yaml/v3"
	sigsjson "sigs.k8s.io/json"
)

// Document is one object read from the input.
type Document struct {
	// File is the path the object was read from, "-" for standard input.
	File string
	// Line and Column locate the start of the object (1-based).
	Line, Column int
	// JSON is the object as kubectl would send it to the server.
	JSON []byte
	// object is the decoded object, when the reader decoded it already:
	// TakeObject hands it over.
	object map[string]any
	// Node is the object's YAML node, with absolute positions; it may be nil
	// when the input could be decoded but not positioned, or not parsed yet:
	// YAMLNode parses it when it is needed.
	Node *yaml.Node
	// later parses Node on demand (documents read by the fast path).
	later *laterNode
	// Err is set (and JSON and Node are not) when this document could not
	// be decoded: see readPathsLenient.
	Err *Error
	// Via and Namespace are a rendered object's (see Rendered): what
	// rendered it, and where it goes when it names no namespace.
	Via, Namespace string
	// Warnings are what is wrong with the text that kubectl still sends:
	// a key given twice (the last value is the one in JSON), keys that
	// are one in JSON (see collidingkeys.go).
	Warnings []*Error
}

// TypeMeta is the apiVersion and kind of a document.
type TypeMeta struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// TypeMeta returns the document's apiVersion and kind ("" where missing or
// not a string).
func (d *Document) TypeMeta() TypeMeta {
	var tm struct {
		APIVersion any `json:"apiVersion"`
		Kind       any `json:"kind"`
	}
	if d.object != nil {
		tm.APIVersion, tm.Kind = d.object["apiVersion"], d.object["kind"]
	} else {
		_ = json.Unmarshal(d.JSON, &tm)
	}
	s := func(v any) string { str, _ := v.(string); return str }
	return TypeMeta{APIVersion: s(tm.APIVersion), Kind: s(tm.Kind)}
}

// TakeObject returns the document's object, decoded from its JSON as the
// API server decodes it, for the caller to keep and change: the document
// no longer holds it (a second call decodes it again).
func (d *Document) TakeObject() (map[string]any, error) {
	obj := d.object
	d.object = nil
	if obj != nil {
		return obj, nil
	}
	err := sigsjson.UnmarshalCaseSensitivePreserveInts(d.JSON, &obj)
	return obj, err
}

// YAMLNode returns the document's YAML node, parsing it first when the
// reader left that for later; nil when there is none.
func (d *Document) YAMLNode() *yaml.Node {
	if d.Node == nil && d.later != nil {
		d.Node = d.later.node()
	}
	return d.Node
}

// laterNode is a document's text, to parse for positions only when a
// position is asked for (most valid documents never need one).
type laterNode struct {
	once   sync.Once
	text   []byte
	offset int // lines before the text in the file
	// columns before the text on its first line (a JSON value that does
	// not start a line)
	columns int
	n       *yaml.Node
}

func (l *laterNode) node() *yaml.Node {
	l.once.Do(func() {
		var root yaml.Node
		if yaml.Unmarshal(l.text, &root) == nil && len(root.Content) > 0 {
			l.n = root.Content[0]
			shiftPositions(l.n, l.offset, l.columns)
		}
		l.text = nil
	})
	return l.n
}

// Pos is "file:line:column" of the document start.
func (d *Document) Pos() string {
	return fmt.Sprintf("%s:%d:%d", d.File, d.Line, d.Column)
}

// Error is a problem with the input at a known place.
type Error struct {
	File         string
	Line, Column int // 0 when unknown
	Msg          string
	// Unopened: the file (or directory) itself could not be opened,
	// so that the message names the flag or argument that named it.
	Unopened bool
	// Sent is what a warning of a document that kubectl still sends adds
	// for those who check what it sends (which value of a key given
	// twice); not part of Error().
	Sent string
	// Type names a warning's cause for reports ("": a key given twice).
	Type string
}

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	default:
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
}
