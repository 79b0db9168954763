package docs

import (
	"bytes"
	"html/template"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/util"
)

// descriptions renders schema descriptions as HTML. A description is a Go
// doc comment that controller-gen copied, and in practice Markdown (as
// crd-ref-docs and the projects' own sites treat it): backticks for code,
// blank lines between paragraphs and line breaks inside them where the
// comment was wrapped, "-" lists, indented examples, links bare or not.
// Two things are not taken as written: raw HTML is shown as the text it
// is (descriptions say <namespace>/<name> far more often than they mean a
// tag, and a safe renderer would drop it), and a heading is a paragraph
// in bold (a heading inside a field's text would break the page's
// outline).
type descriptions struct {
	md goldmark.Markdown
}

func newDescriptions() *descriptions {
	return &descriptions{md: goldmark.New(
		goldmark.WithExtensions(extension.Linkify, extension.Strikethrough),
		goldmark.WithRendererOptions(renderer.WithNodeRenderers(util.Prioritized(asText{}, 100))),
	)}
}

// block is a description as HTML paragraphs, lists and code blocks.
func (d *descriptions) block(s string) template.HTML {
	var b bytes.Buffer
	if err := d.md.Convert([]byte(s), &b); err != nil {
		// Only the writer can fail, and a buffer does not; were it to,
		// the text as it is still says everything.
		return template.HTML("<p>" + template.HTMLEscapeString(s) + "</p>")
	}
	return template.HTML(b.String()) //nolint:gosec // goldmark's output, raw HTML escaped by asText
}

// inline is a one-paragraph description (an index's summary) without the
// paragraph around it, for a table cell.
func (d *descriptions) inline(s string) template.HTML {
	h := strings.TrimSpace(string(d.block(s)))
	if inner, ok := strings.CutPrefix(h, "<p>"); ok && strings.HasSuffix(inner, "</p>") && !strings.Contains(inner, "<p>") {
		h = strings.TrimSuffix(inner, "</p>")
	}
	return template.HTML(h) //nolint:gosec // as block
}

// asText renders what would be raw HTML as escaped text, and headings as
// bold paragraphs; goldmark's own renderer does the rest.
type asText struct{}

func (asText) RegisterFuncs(r renderer.NodeRendererFuncRegisterer) {
	r.Register(ast.KindRawHTML, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			segs := n.(*ast.RawHTML).Segments
			for i := range segs.Len() {
				seg := segs.At(i)
				template.HTMLEscape(w, seg.Value(source))
			}
		}
		return ast.WalkSkipChildren, nil
	})
	r.Register(ast.KindHTMLBlock, func(w util.BufWriter, source []byte, n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		h := n.(*ast.HTMLBlock)
		var text bytes.Buffer
		for i := range h.Lines().Len() {
			line := h.Lines().At(i)
			text.Write(line.Value(source))
		}
		if h.HasClosure() {
			text.Write(h.ClosureLine.Value(source))
		}
		_, _ = w.WriteString("<p>")
		template.HTMLEscape(w, bytes.TrimRight(text.Bytes(), "\n"))
		_, _ = w.WriteString("</p>\n")
		return ast.WalkSkipChildren, nil
	})
	r.Register(ast.KindHeading, func(w util.BufWriter, _ []byte, _ ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering {
			_, _ = w.WriteString("<p><strong>")
		} else {
			_, _ = w.WriteString("</strong></p>\n")
		}
		return ast.WalkContinue, nil
	})
}
