package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/internal/fast"
	yaml "go.yaml.in/yaml/v3"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// decodeYAML decodes one YAML document that starts after offset lines of
// the file; it returns nil for an empty one. A document that kubectl's
// reader takes as an object, and whose place the first content line
// tells, is decoded by that reader and its YAML node parsed only when a
// position is asked for (most valid documents never need one); any other
// document is parsed for its node first, which says what is wrong with it.
func decodeYAML(name string, text []byte, offset int) (*Document, error) {
	if d := decodeNodeLater(name, text, offset); d != nil {
		return d, nil
	}
	return decodeNodeFirst(name, text, offset)
}

// decodeNodeLater decodes a document with kubectl's reader, leaving its
// node for later; nil when kubectl's reader does not take it as an object
// (or its place needs the parser).
func decodeNodeLater(name string, text []byte, offset int) *Document {
	line, column, ok := firstKey(text)
	if !ok {
		return nil
	}
	js, obj := asKubectlReads(text)
	if obj == nil {
		return nil
	}
	return &Document{File: name, Line: line + offset, Column: column, JSON: js, object: obj,
		later: &laterNode{text: text, offset: offset}}
}

// decodeNodeFirst decodes one YAML document with its YAML node, and says
// exactly what is wrong with it when it cannot be an object.
func decodeNodeFirst(name string, text []byte, offset int) (*Document, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(text, &root); err != nil {
		// kubectl's YAML reader is more lenient than this one in a few
		// corners: what it reads as an object is an object, without
		// positions.
		if js, obj := asKubectlReads(text); obj != nil {
			line, column, ok := firstKey(text)
			if !ok {
				line, column = 1, 1
			}
			return &Document{File: name, Line: line + offset, Column: column, JSON: js, object: obj}, nil
		}
		return nil, shiftLine(yamlError(name, err), offset)
	}
	shiftPositions(&root, offset, 0)
	if root.Kind == 0 || len(root.Content) == 0 {
		return nil, nil
	}
	node := root.Content[0]
	if node.Kind == yaml.ScalarNode && node.Tag == "!!null" {
		return nil, nil
	}
	if err := checkNode(name, node); err != nil {
		return nil, err
	}
	// As kubectl reads it: a key given twice keeps its last value, and of
	// keys that are one in JSON the last is kept (see lastKeyWins).
	warnings, earlier := keyWarnings(name, node, jsonKeys{})
	src, dropped := text, []string(nil)
	if len(earlier) > 0 {
		if renamed, names, ok := lastKeyWins(text, offset, earlier); ok {
			src, dropped = renamed, names
		}
	}
	js, err := sigsyaml.YAMLToJSON(src)
	if err != nil {
		return nil, shiftLine(yamlError(name, err), offset)
	}
	var obj map[string]any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(js, &obj); err != nil {
		return nil, &Error{File: name, Line: node.Line, Column: node.Column, Msg: "invalid object: " + jsonMessage(err)}
	}
	if len(dropped) > 0 {
		dropKeys(obj, dropped)
		if js, err = json.Marshal(obj); err != nil {
			return nil, &Error{File: name, Line: node.Line, Column: node.Column, Msg: "invalid object: " + err.Error()}
		}
	}
	return &Document{File: name, Line: node.Line, Column: node.Column, JSON: js, object: obj, Node: node,
		Warnings: warnings}, nil
}

// asKubectlReads decodes a YAML document into JSON as kubectl does
// (sigs.k8s.io/yaml), strictly: nil when it is not an object, or has a key
// given twice, in YAML or only once it is JSON (1 and "1"). Most objects
// are read in one pass (readDirect), the others as kubectl reads them.
func asKubectlReads(text []byte) ([]byte, map[string]any) {
	if fast.Enabled() {
		if js, obj := readDirect(text); obj != nil {
			return js, obj
		}
	}
	return kubectlReads(text)
}

// kubectlReads is kubectl's reading: YAML to JSON, then the JSON decoded.
func kubectlReads(text []byte) ([]byte, map[string]any) {
	js, err := sigsyaml.YAMLToJSONStrict(text)
	if err != nil || len(js) == 0 || js[0] != '{' {
		return nil, nil
	}
	var obj map[string]any
	if dups, err := sigsjson.UnmarshalStrict(js, &obj, sigsjson.DisallowDuplicateFields); err != nil || len(dups) > 0 || obj == nil {
		return nil, nil
	}
	if !stringKeys(obj) {
		return nil, nil
	}
	return js, obj
}

// stringKeys tells whether every key of v could only have been a string in
// YAML. A key such as 1, true or 1.5 becomes a string in JSON, and can
// then silently take the place of another key ("1"); parsing the node
// first compares the keys as written.
func stringKeys(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if !stringLike(k) || !stringKeys(e) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !stringKeys(e) {
				return false
			}
		}
	}
	return true
}

// stringLike: not the JSON form of a YAML number, boolean or null (those
// start with a digit, a sign or a dot, or are true, false, null or NaN).
func stringLike(k string) bool {
	if k == "" || k == "true" || k == "false" || k == "null" || k == "NaN" {
		return false
	}
	c := k[0]
	return !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.')
}

// firstKey finds where a document's mapping starts, the place the YAML
// parser gives its node: the first line that is not blank, a comment or
// a directive, which must start with a letter or a quote (a key) or "{".
func firstKey(text []byte) (line, column int, ok bool) {
	for line = 1; len(text) > 0; line++ {
		l := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if otherBreak(l) {
			return 0, 0, false
		}
		trimmed := bytes.TrimLeft(l, " ")
		if len(bytes.TrimSpace(trimmed)) == 0 || trimmed[0] == '#' {
			continue
		}
		c := trimmed[0]
		key := c == '"' || c == '\'' || c == '{' || c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		return line, len(l) - len(trimmed) + 1, key && bytes.IndexByte(l, '\t') < 0
	}
	return 0, 0, false
}

// otherBreak tells whether a line holds a line break other than "\n" and
// "\r\n", which the YAML parser counts as a line: "\r", NEL, LS, PS.
func otherBreak(l []byte) bool {
	if i := bytes.IndexByte(l, '\r'); i >= 0 && i < len(l)-1 {
		return true
	}
	return bytes.Contains(l, []byte("\u0085")) || bytes.Contains(l, []byte("\u2028")) || bytes.Contains(l, []byte("\u2029"))
}

func shiftLine(err error, offset int) error {
	if e, ok := err.(*Error); ok && e.Line > 0 {
		e.Line += offset
	}
	return err
}

// jsonMessage is a JSON decoder's error, with the nesting limit (which
// kubectl's and the API server's decoders share) said plainly.
func jsonMessage(err error) string {
	if strings.Contains(err.Error(), "exceeded max depth") {
		return "nested more than 10000 levels deep (kubectl and the API server refuse it)"
	}
	return err.Error()
}

// yamlError turns a YAML parser error into an Error with its line.
func yamlError(name string, err error) error {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "error converting YAML to JSON: ")
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	// "line N: problem"
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		number, problem, ok := strings.Cut(rest, ": ")
		if line, err := strconv.Atoi(number); ok && err == nil {
			if isParserProblem(problem) {
				// The YAML parser (unlike its scanner) counts lines from 0.
				line++
			}
			return &Error{File: name, Line: line, Msg: "invalid YAML: " + problem}
		}
	}
	return &Error{File: name, Msg: "invalid YAML: " + msg}
}

// parserProblems are the YAML parser's (not scanner's) messages; they come
// with the line of the construct the parser was in, counted from 0.
var parserProblems = []string{
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected node content",
	"did not find expected key",
	"did not find expected '-' indicator",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
}

func isParserProblem(msg string) bool {
	for _, p := range parserProblems {
		if msg == p {
			return true
		}
	}
	return false
}

// checkNode rejects documents that cannot be objects.
func checkNode(name string, node *yaml.Node) error {
	if node.Kind != yaml.MappingNode {
		return &Error{File: name, Line: node.Line, Column: node.Column,
			Msg: fmt.Sprintf("expected an object (a mapping with apiVersion and kind), found %s", describe(node))}
	}
	return nil
}

func describe(node *yaml.Node) string {
	switch node.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("the scalar %q", node.Value)
	case yaml.AliasNode:
		return "an alias"
	default:
		return "something else"
	}
}
