package docs

import (
	"strings"
	"testing"
)

// TestDescriptionsAsMarkdown: a Go comment's wrapped lines are one
// paragraph, blank lines part paragraphs, backticks are code, URLs bare
// or not are links, lists and indented examples are lists and code;
// what would be raw HTML stays as the text it is, a javascript: link is
// not one, and a heading is a bold paragraph.
func TestDescriptionsAsMarkdown(t *testing.T) {
	d := newDescriptions()
	for _, tt := range []struct {
		name, in string
		want     []string
		not      []string
	}{
		{"wrapped lines", "Replicas is the number\nof pods to run.", []string{"<p>Replicas is the number\nof pods to run.</p>"}, []string{"<br"}},
		{"paragraphs", "First.\n\nSecond.", []string{"<p>First.</p>", "<p>Second.</p>"}, nil},
		{"code", "Set `spec.replicas` to 0.", []string{"<code>spec.replicas</code>"}, []string{"`"}},
		{"bare link", "See https://example.com/docs for more.", []string{`<a href="https://example.com/docs">https://example.com/docs</a>`}, nil},
		{"link", "See [the docs](https://example.com/docs).", []string{`<a href="https://example.com/docs">the docs</a>`}, []string{"]("}},
		{"list", "Options are:\n- Honor: only those.\n- Ignore: all.", []string{"<ul>", "<li>Honor: only those.</li>", "<li>Ignore: all.</li>"}, nil},
		{"ordered list", "Kinds:\n1. Namespaced\n2. Cluster", []string{"<ol>", "<li>Namespaced</li>"}, nil},
		{"example", "For example:\n\n    kind: Thing\n    spec: {}", []string{"<pre><code>kind: Thing\nspec: {}\n</code></pre>"}, nil},
		{"placeholders", "Format: <namespace>/<name>, as in a <b>tag</b>.", []string{"Format: &lt;namespace&gt;/&lt;name&gt;, as in a &lt;b&gt;tag&lt;/b&gt;."}, []string{"<namespace>", "<b>", "omitted"}},
		{"html block", "<details>\nkept\n</details>", []string{"&lt;details&gt;", "kept", "&lt;/details&gt;"}, []string{"<details>", "omitted"}},
		{"script", "<script>alert(1)</script>", []string{"&lt;script&gt;alert(1)&lt;/script&gt;"}, []string{"<script>"}},
		{"javascript link", "[click](javascript:alert(1))", nil, []string{`href="javascript`}},
		{"heading", "# Usage\nText.", []string{"<p><strong>Usage</strong></p>", "<p>Text.</p>"}, []string{"<h1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := string(d.block(tt.in))
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("%q: no %q in\n%s", tt.in, w, got)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(got, n) {
					t.Errorf("%q: %q in\n%s", tt.in, n, got)
				}
			}
		})
	}
	if got := d.inline("One paragraph with `code`."); got != "One paragraph with <code>code</code>." {
		t.Errorf("summary: %q", got)
	}
	if got := string(d.inline("One.\n\nTwo.")); !strings.Contains(got, "<p>One.</p>") {
		t.Errorf("summary of two paragraphs: %q", got)
	}
}
