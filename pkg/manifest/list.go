package manifest

import (
	"encoding/json"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// expandLists replaces every List document (kind "List" or "*List" with an
// items array) by its items, as kubectl does.
func expandLists(docs []Document) []Document {
	out := make([]Document, 0, len(docs))
	for _, d := range docs {
		if d.Err != nil || !strings.HasSuffix(d.TypeMeta().Kind, "List") {
			out = append(out, d)
			continue
		}
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(d.JSON, &list); err != nil || list.Items == nil {
			out = append(out, d)
			continue
		}
		itemNodes := childNode(d.YAMLNode(), "items")
		for i, raw := range list.Items {
			item := Document{File: d.File, Line: d.Line, Column: d.Column, JSON: raw}
			if itemNodes != nil && i < len(itemNodes.Content) {
				n := itemNodes.Content[i]
				item.Node, item.Line, item.Column = n, n.Line, n.Column
				if n.Kind != yaml.MappingNode {
					out = append(out, failed(&Error{File: d.File, Line: n.Line, Column: n.Column,
						Msg: fmt.Sprintf("items[%d]: expected an object, found %s", i, describe(n))}))
					continue
				}
			}
			if len(raw) == 0 || raw[0] != '{' {
				out = append(out, failed(&Error{File: d.File, Line: item.Line, Column: item.Column,
					Msg: fmt.Sprintf("items[%d]: expected an object", i)}))
				continue
			}
			out = append(out, expandLists([]Document{item})...)
		}
	}
	return out
}

// childNode returns the value of key in a mapping node, or nil.
func childNode(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
