package lsp

import (
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"github.com/kubectl-crd/kubectl-crd/pkg/lifecycle"
	"go.lsp.dev/protocol"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// docKind reads the apiVersion and kind of the YAML document that holds
// lines[row], from its top-level keys.
func docKind(lines []string, row int) (apiVersion, kind string) {
	first, last := row, row
	for first > 0 && !parseLine(lines[first]).docStart {
		first--
	}
	for last+1 < len(lines) && !parseLine(lines[last+1]).docStart {
		last++
	}
	for r := first; r <= last; r++ {
		l := parseLine(lines[r])
		if l.content != 0 || len(l.dashes) > 0 {
			continue
		}
		_, rest, _ := cutKey(lines[r])
		value := strings.Trim(strings.TrimSpace(stripComment(rest)), `"'`)
		switch l.key {
		case "apiVersion":
			apiVersion = value
		case "kind":
			kind = value
		}
	}
	return apiVersion, kind
}

// crdAt is the CRD of the document that holds lines[row] and its version,
// as the last check found it (hover and completion never wait for the
// catalog or a cluster); nil when unknown.
func (s *Server) crdAt(doc *document, row int) (*apiextensionsv1.CustomResourceDefinition, string) {
	apiVersion, kind := docKind(doc.textLines(), row)
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || kind == "" {
		return nil, ""
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: kind}
	s.mu.Lock()
	env := s.env
	var crd *catalog.CRD
	if cur := s.docs[doc.uri]; cur != nil {
		crd = cur.crds[gk]
	}
	s.mu.Unlock()
	if crd == nil && env != nil {
		crd = env.lookup(gk)
	}
	if crd == nil {
		return nil, ""
	}
	return crd.CustomResourceDefinition, gv.Version
}

// fieldAt is the schema of the field at path of a CRD version, and
// whether its parent requires it.
func fieldAt(crd *apiextensionsv1.CustomResourceDefinition, version string, path []string) (*apiextensionsv1.JSONSchemaProps, bool) {
	root, err := explain.Schema(crd, version)
	if err != nil || len(path) == 0 {
		return nil, false
	}
	parent, err := explain.Field(root, path[:len(path)-1])
	if err != nil {
		return nil, false
	}
	for _, n := range explain.Walk(parent, path[:len(path)-1], false) {
		if n.Path[len(n.Path)-1] == path[len(path)-1] {
			return n.Schema, n.Required
		}
	}
	return nil, false
}

// fieldDoc is a field's documentation as explain writes it: its path and
// type, whether it is required, its description, and the constraints of
// explain -o detailed.
func fieldDoc(path []string, s *apiextensionsv1.JSONSchemaProps, required bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** `%s`", strings.Join(path, "."), explain.TypeName(s))
	if required {
		b.WriteString(" *(required)*")
	}
	if s.Description != "" {
		fmt.Fprintf(&b, "\n\n%s", s.Description)
	}
	if cs := explain.Constraints(s); len(cs) > 0 {
		b.WriteString("\n\n" + explain.MarkdownConstraints(cs))
	}
	return b.String()
}

// crdDoc is the summary of a CRD: group, kind, scope and versions.
func crdDoc(crd *apiextensionsv1.CustomResourceDefinition, version string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** (%s), %s\n\n", crd.Spec.Names.Kind, crd.Spec.Group, strings.ToLower(string(crd.Spec.Scope)))
	for _, v := range crd.Spec.Versions {
		mark := ""
		if v.Name == version {
			mark = " ←"
		}
		fmt.Fprintf(&b, "- %s%s\n", lifecycle.VersionOf(&v), mark)
		if v.Name == version && v.Deprecated {
			fmt.Fprintf(&b, "\n%s\n", catalog.DeprecationWarning(crd, &v))
		}
	}
	if root, err := explain.Schema(crd, version); err == nil && root.Description != "" {
		fmt.Fprintf(&b, "\n%s", root.Description)
	}
	return b.String()
}

// point is the document of uri, its lines, and the row and cursor of pos
// in it; doc is nil when the document is not open or pos is past its end.
func (s *Server) point(uri protocol.DocumentURI, pos protocol.Position) (doc *document, lines []string, row int, c cursor) {
	doc = s.doc(uri)
	if doc == nil {
		return nil, nil, 0, cursor{}
	}
	lines = doc.textLines()
	row = int(pos.Line)
	if row >= len(lines) {
		return nil, nil, 0, cursor{}
	}
	return doc, lines, row, cursorAt(lines, row, byteColumn(lines[row], int(pos.Character)))
}

func (s *Server) hover(uri protocol.DocumentURI, pos protocol.Position) *protocol.Hover {
	doc, lines, row, c := s.point(uri, pos)
	if doc == nil || c.key == "" {
		return nil
	}
	if c.key == "rule" {
		if h := ruleHover(doc, lines, row); h != nil {
			return h
		}
	}
	crd, version := s.crdAt(doc, row)
	if crd == nil {
		return nil
	}
	path := append(fieldPath(c.path()), c.key)
	var text string
	if len(path) == 1 && (c.key == "apiVersion" || c.key == "kind") {
		text = crdDoc(crd, version)
	} else {
		field, required := fieldAt(crd, version, path)
		if field == nil {
			return nil
		}
		text = fieldDoc(path, field, required)
	}
	l := parseLine(lines[row])
	start, end := tokenRange(lines[row], l.content, false)
	return &protocol.Hover{
		Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: text},
		Range: &protocol.Range{
			Start: protocol.Position{Line: uint32(row), Character: uint32(utf16Column(lines[row], start))},
			End:   protocol.Position{Line: uint32(row), Character: uint32(utf16Column(lines[row], end))},
		},
	}
}

// ruleHover is the cost of the CEL rule of a CRD at row, if there is one.
func ruleHover(doc *document, lines []string, row int) *protocol.Hover {
	for _, r := range textRuleCosts(doc.path, doc.text) {
		if r.line != row+1 {
			continue
		}
		l := parseLine(lines[row])
		start, end := tokenRange(lines[row], l.content, false)
		return &protocol.Hover{
			Contents: protocol.MarkupContent{Kind: protocol.Markdown, Value: "**CEL rule**: " + costText(r)},
			Range: &protocol.Range{
				Start: protocol.Position{Line: uint32(row), Character: uint32(utf16Column(lines[row], start))},
				End:   protocol.Position{Line: uint32(row), Character: uint32(utf16Column(lines[row], end))},
			},
		}
	}
	return nil
}
