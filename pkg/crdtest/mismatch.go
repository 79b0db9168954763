package crdtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	yaml "go.yaml.in/yaml/v3"
)

// typeMismatch says, in the suite format's terms and at the place of the
// value, what a value of the wrong type is (a mapping where the format
// wants text, a list where it wants a mapping); nil when err is not that.
// The decoder's own message names Go types (crdtest.Tests, CreateCase),
// which a suite's author never wrote.
func typeMismatch(d *manifest.Document) *manifest.Error {
	// The standard decoder's error carries the value's kind and the Go
	// type; the format's decoder is the same on types.
	var probe Suite
	var te *json.UnmarshalTypeError
	if !errors.As(json.Unmarshal(d.JSON, &probe), &te) {
		return nil
	}
	path, node := findValue(d.YAMLNode(), strings.Split(te.Field, "."), "", te.Value)
	e := &manifest.Error{File: d.File, Line: d.Line, Column: d.Column}
	if node != nil {
		e.Line, e.Column = node.Line, node.Column
	} else {
		path = te.Field
	}
	e.Msg = fmt.Sprintf("%s: %s, where the suite format wants %s", path, valueTerm(te.Value), typeTerm(te.Type))
	if te.Type.Kind() == reflect.String && te.Value == "object" {
		e.Msg += ` (an object is written as text: "` + path[strings.LastIndex(path, ".")+1:] + `: |" and the object indented below it)`
	}
	return e
}

// findValue finds the first node at the path of keys (any item of a list
// on the way) whose value is of the kind the decoder refused, and its path
// with list indices.
func findValue(n *yaml.Node, keys []string, at, value string) (string, *yaml.Node) {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n == nil {
		return "", nil
	}
	if len(keys) == 0 || keys[0] == "" {
		if kindOf(n) == value {
			return at, n
		}
		return "", nil
	}
	switch n.Kind {
	case yaml.SequenceNode:
		for i, item := range n.Content {
			if p, found := findValue(item, keys, fmt.Sprintf("%s[%d]", at, i), value); found != nil {
				return p, found
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == keys[0] {
				next := keys[0]
				if at != "" {
					next = at + "." + next
				}
				p, found := findValue(n.Content[i+1], keys[1:], next, value)
				if found != nil && len(keys) == 1 {
					found = n.Content[i] // said at its key, as other fields are
				}
				return p, found
			}
		}
	}
	return "", nil
}

// kindOf is a node's kind as the JSON decoder names a value's.
func kindOf(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "object"
	case yaml.SequenceNode:
		return "array"
	}
	switch n.Tag {
	case "!!int", "!!float":
		return "number"
	case "!!bool":
		return "bool"
	}
	return "string"
}

func valueTerm(value string) string {
	switch {
	case value == "object":
		return "a mapping"
	case value == "array":
		return "a list"
	case value == "bool":
		return "true or false"
	case strings.HasPrefix(value, "number"):
		return "a number"
	}
	return "a string"
}

func typeTerm(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	case reflect.Bool:
		return "true or false"
	case reflect.Pointer:
		return typeTerm(t.Elem())
	case reflect.Interface:
		return "a value"
	}
	return "a number"
}
