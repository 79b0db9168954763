package manifest

import (
	"encoding/json"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
)

// readDirect is kubectl's reading of a YAML object (sigs.k8s.io/yaml to
// JSON, then that JSON decoded as the API server decodes it) in one pass:
// the same YAML parser, strictly, its values taken as they are where the
// trip through JSON would give them back unchanged. It answers only for
// the objects whose every key is a string that asKubectlReads would take
// (stringLike) and whose every value is a string in UTF-8, an integer, a
// boolean, null, a list or a map; for anything else (a float, whose JSON
// may come back as an integer; a key YAML reads as a number; text that
// is not UTF-8, which JSON replaces) it returns nil and the caller reads
// the document as kubectl does. The JSON is the object marshalled, as
// sigs.k8s.io/yaml marshals it. FuzzReadDirect holds it to kubectl's
// reading.
func readDirect(text []byte) ([]byte, map[string]any) {
	var v any
	if yamlv2.UnmarshalStrict(text, &v) != nil {
		return nil, nil
	}
	m, ok := v.(map[any]any)
	if !ok {
		return nil, nil
	}
	obj, ok := directMap(m, 1)
	if !ok {
		return nil, nil
	}
	js, err := json.Marshal(obj)
	if err != nil {
		return nil, nil
	}
	return js, obj
}

// maxDepth is the nesting of maps and lists read directly: the JSON
// decoder kubectl's reading goes through refuses more than 10,000 levels
// in all ("exceeded max depth"), where the YAML parser counts flow and
// block nesting apart. Past it, the document is read as kubectl reads
// it, and refused as kubectl refuses it.
const maxDepth = 10000

// directMap is m, a map at nesting depth (the object is 1).
func directMap(m map[any]any, depth int) (map[string]any, bool) {
	if depth > maxDepth-1 {
		return nil, false
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		key, ok := k.(string)
		if !ok || !stringLike(key) || !utf8.ValidString(key) {
			return nil, false
		}
		if out[key], ok = directValue(v, depth+1); !ok {
			return nil, false
		}
	}
	return out, true
}

// directValue is v, at nesting depth, as the trip through JSON gives it
// back; false where that may differ. Lists are converted in place: the
// parser's tree is this reading's own.
func directValue(v any, depth int) (any, bool) {
	switch v := v.(type) {
	case nil, bool:
		return v, true
	case string:
		return v, utf8.ValidString(v)
	case int:
		return int64(v), true
	case int64:
		return v, true
	case map[any]any:
		return directMap(v, depth)
	case []any:
		if depth > maxDepth-1 {
			return nil, false
		}
		for i, e := range v {
			c, ok := directValue(e, depth+1)
			if !ok {
				return nil, false
			}
			v[i] = c
		}
		return v, true
	}
	return nil, false
}
