package lsp

import (
	"sort"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"go.lsp.dev/protocol"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func (s *Server) complete(uri protocol.DocumentURI, pos protocol.Position) *protocol.CompletionList {
	list := &protocol.CompletionList{Items: []protocol.CompletionItem{}}
	doc := s.doc(uri)
	if doc == nil {
		return list
	}
	lines := doc.textLines()
	row := int(pos.Line)
	if row >= len(lines) {
		return list
	}
	col := byteColumn(lines[row], int(pos.Character))
	c := cursorAt(lines, row, col)
	crd, version := s.crdAt(doc, row)
	if c.key != "" {
		if _, rest, ok := cutKey(lines[row][parseLine(lines[row]).content:]); ok && col >= len(lines[row])-len(rest) {
			list.Items = s.valuesFor(c, crd, version)
			return list
		}
	}
	path := fieldPath(c.path())
	var fields []explain.Node
	if crd != nil {
		if root, err := explain.Schema(crd, version); err == nil {
			if node, err := explain.Field(root, path); err == nil {
				fields = explain.Walk(node, path, false)
			}
		}
	}
	if len(c.path()) == 0 {
		fields = withTypeMeta(fields)
	}
	for _, n := range fields {
		name := n.Path[len(n.Path)-1]
		if c.siblings[name] || n.Key() {
			continue
		}
		order := "1"
		if n.Required {
			order = "0"
		}
		list.Items = append(list.Items, protocol.CompletionItem{
			Label:         name,
			Kind:          protocol.CompletionItemKindField,
			Detail:        explain.TypeName(n.Schema),
			Documentation: protocol.MarkupContent{Kind: protocol.Markdown, Value: fieldDoc(n.Path, n.Schema, n.Required)},
			SortText:      order + name,
			InsertText:    name + ": ",
		})
	}
	return list
}

// withTypeMeta adds apiVersion, kind and metadata to a kind's top-level
// fields, where its schema does not list them.
func withTypeMeta(fields []explain.Node) []explain.Node {
	have := map[string]bool{}
	for _, n := range fields {
		have[n.Path[0]] = true
	}
	for _, name := range []string{"apiVersion", "kind", "metadata"} {
		if !have[name] {
			typ := "string"
			if name == "metadata" {
				typ = "object"
			}
			fields = append(fields, explain.Node{Path: []string{name}, Schema: &apiextensionsv1.JSONSchemaProps{Type: typ}, Required: true})
		}
	}
	return fields
}

// valuesFor are the values of the key at the cursor: the served versions
// and kinds of the CRDs known for apiVersion and kind, a field's enum, or
// true and false.
func (s *Server) valuesFor(c cursor, crd *apiextensionsv1.CustomResourceDefinition, version string) []protocol.CompletionItem {
	var values []string
	if len(c.parents) == 0 && (c.key == "apiVersion" || c.key == "kind") {
		s.mu.Lock()
		env := s.env
		s.mu.Unlock()
		if env != nil {
			seen := map[string]bool{}
			for _, k := range env.all() {
				for _, v := range k.Spec.Versions {
					if !v.Served {
						continue
					}
					value := k.Spec.Group + "/" + v.Name
					if c.key == "kind" {
						value = k.Spec.Names.Kind
					}
					if !seen[value] {
						seen[value] = true
						values = append(values, value)
					}
				}
			}
		}
	} else if crd != nil {
		if field, _ := fieldAt(crd, version, append(fieldPath(c.path()), c.key)); field != nil {
			for _, e := range field.Enum {
				values = append(values, strings.Trim(string(e.Raw), `"`))
			}
			if field.Type == "boolean" {
				values = append(values, "true", "false")
			}
		}
	}
	sort.Strings(values)
	items := []protocol.CompletionItem{}
	for _, v := range values {
		items = append(items, protocol.CompletionItem{Label: v, Kind: protocol.CompletionItemKindValue, InsertText: v})
	}
	return items
}
