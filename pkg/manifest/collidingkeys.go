package manifest

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	yaml "go.yaml.in/yaml/v3"
	sigsjson "sigs.k8s.io/json"
	sigsyaml "sigs.k8s.io/yaml"
)

// Keys that differ in YAML can be one key in JSON: true and 'true', 1 and
// '1', yes and true (kubectl's YAML parser reads YAML 1.1, where yes is a
// boolean). kubectl's reading (sigs.k8s.io/yaml) puts both in a Go map
// and writes them out in the map's order, so which value it sends
// changes from run to run. kubectl crd takes the value of the last such
// key in the document, in every run, and warns at each key whose value
// is not sent.

// What the warnings of a key given twice add for those who check what
// kubectl sends (Error.Sent).
const (
	lastValueSent      = "; kubectl sends the last value"
	collidingValueSent = "; kubectl sends one of their values, not the same in every run: kubectl crd checks the last"
)

// jsonKeys gives the key kubectl's reading writes in JSON for each key
// node of a document, and whether its YAML parser reads it as a string,
// asking kubectl's reading itself for the keys that are not quoted; each
// is asked once.
type jsonKeys map[string]jsonKey

type jsonKey struct {
	key      string
	isString bool
}

// of is k's key in JSON, and whether it is a string in YAML (false for a
// key that is not a scalar, or has a tag, which is not worked out).
func (keys jsonKeys) of(k *yaml.Node) (jsonKey, bool) {
	switch {
	case k.Kind != yaml.ScalarNode || k.Style&yaml.TaggedStyle != 0:
		return jsonKey{}, false
	case k.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0:
		return jsonKey{k.Value, true}, true
	}
	if key, ok := keys[k.Value]; ok {
		return key, key.key != ""
	}
	var key jsonKey
	text := []byte(k.Value + ": 0\n")
	js, err := sigsyaml.YAMLToJSON(text)
	var m map[string]any
	var parsed map[any]any
	if err == nil && sigsjson.UnmarshalCaseSensitivePreserveInts(js, &m) == nil && len(m) == 1 && yamlv2.Unmarshal(text, &parsed) == nil {
		for key.key = range m {
		}
		for k := range parsed {
			_, key.isString = k.(string)
		}
	}
	keys[k.Value] = key
	return key, key.key != ""
}

// keyWarnings are the warnings of a document's keys: each key given a
// second time, and each key that is another key of its mapping in JSON;
// earlier lists the keys whose values kubectl's reading may or may not
// send, all but the last of each key that collides (with keys of
// different text: a key written twice alike keeps its last value in
// kubectl's reading too).
func keyWarnings(name string, node *yaml.Node, keys jsonKeys) (found []*Error, earlier []*yaml.Node) {
	switch node.Kind {
	case yaml.MappingNode:
		seen := map[string]*yaml.Node{}
		byJSON := map[string][]*yaml.Node{}
		allStrings := map[string]bool{} // by JSON key: each key so far is a string in YAML
		for i := 0; i+1 < len(node.Content); i += 2 {
			k := node.Content[i]
			key, ok := keys.of(k)
			switch {
			case !ok:
				if first, dup := seen[k.Value]; dup && k.Kind == yaml.ScalarNode {
					found = append(found, duplicate(name, k, first))
				}
			case len(byJSON[key.key]) == 0:
				allStrings[key.key] = key.isString
				byJSON[key.key] = append(byJSON[key.key], k)
			default:
				// Keys that are all strings in YAML are one key of kubectl's
				// map, which keeps the last value; a string and a boolean
				// (or number) are two, written in the map's order.
				first := byJSON[key.key][0]
				if allStrings[key.key] && key.isString {
					found = append(found, duplicate(name, k, first))
				} else {
					allStrings[key.key] = false
					found = append(found, &Error{File: name, Line: k.Line, Column: k.Column, Sent: collidingValueSent,
						Msg: fmt.Sprintf("key %s is %q in JSON, as is the key %s at line %d", written(k), key.key, written(first), first.Line)})
				}
				byJSON[key.key] = append(byJSON[key.key], k)
			}
			seen[k.Value] = k
			f, e := keyWarnings(name, node.Content[i+1], keys)
			found, earlier = append(found, f...), append(earlier, e...)
		}
		for key, group := range byJSON {
			if len(group) > 1 && !allStrings[key] {
				earlier = append(earlier, group[:len(group)-1]...)
			}
		}
	case yaml.SequenceNode:
		for _, c := range node.Content {
			f, e := keyWarnings(name, c, keys)
			found, earlier = append(found, f...), append(earlier, e...)
		}
	}
	return found, earlier
}

func duplicate(name string, k, first *yaml.Node) *Error {
	return &Error{File: name, Line: k.Line, Column: k.Column, Sent: lastValueSent,
		Msg: fmt.Sprintf("duplicate key %q (first at line %d)", k.Value, first.Line)}
}

// written is a key as written: quoted when it was.
func written(k *yaml.Node) string {
	switch {
	case k.Style&yaml.SingleQuotedStyle != 0:
		return "'" + k.Value + "'"
	case k.Style&yaml.DoubleQuotedStyle != 0:
		return fmt.Sprintf("%q", k.Value)
	}
	return k.Value
}

// lastKeyWins is text with each key of earlier renamed to a name of its
// own, so that kubectl's reading of it keeps the last of each colliding
// key, and the names given (to be dropped from what it reads); false
// when a key cannot be found in the text as the parser placed it.
// offset is the number of lines before text in its file.
func lastKeyWins(text []byte, offset int, earlier []*yaml.Node) ([]byte, []string, bool) {
	lines := bytes.SplitAfter(text, []byte("\n"))
	// Right to left, so that a renamed key leaves the places of those
	// before it on its line as they were.
	earlier = slices.Clone(earlier)
	slices.SortFunc(earlier, func(a, b *yaml.Node) int { return cmp.Or(b.Line-a.Line, b.Column-a.Column) })
	var names []string
	for i, k := range earlier {
		l := k.Line - offset - 1
		if l < 0 || l >= len(lines) || k.Column < 1 {
			return nil, nil, false
		}
		line := lines[l]
		start := byteOffset(line, k.Column-1)
		end, ok := tokenEnd(line, start, k)
		if !ok {
			return nil, nil, false
		}
		name := fmt.Sprintf("kubectl-crd-earlier-key-%d", i)
		names = append(names, name)
		lines[l] = append(append(append([]byte{}, line[:start]...), name...), line[end:]...)
	}
	return bytes.Join(lines, nil), names, true
}

// byteOffset is the byte offset of the column'th character of line.
func byteOffset(line []byte, column int) int {
	off := 0
	for range column {
		if off >= len(line) {
			break
		}
		_, size := utf8.DecodeRune(line[off:])
		off += size
	}
	return off
}

// tokenEnd is where the key k, written at start of line, ends.
func tokenEnd(line []byte, start int, k *yaml.Node) (int, bool) {
	rest := line[start:]
	switch {
	case k.Style&yaml.SingleQuotedStyle != 0:
		for i := 1; i < len(rest); i++ {
			if rest[i] == '\'' {
				if i+1 < len(rest) && rest[i+1] == '\'' {
					i++
					continue
				}
				return start + i + 1, true
			}
		}
	case k.Style&yaml.DoubleQuotedStyle != 0:
		for i := 1; i < len(rest); i++ {
			switch rest[i] {
			case '\\':
				i++
			case '"':
				return start + i + 1, true
			}
		}
	case bytes.HasPrefix(rest, []byte(k.Value)) && k.Value != "":
		return start + len(k.Value), true
	}
	return 0, false
}

// dropKeys deletes the keys named from every map of v.
func dropKeys(v any, names []string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if strings.HasPrefix(k, "kubectl-crd-earlier-key-") && slices.Contains(names, k) {
				delete(x, k)
				continue
			}
			dropKeys(e, names)
		}
	case []any:
		for _, e := range x {
			dropKeys(e, names)
		}
	}
}
