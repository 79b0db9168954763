package manifest

import (
	"strings"
	"testing"
)

// TestSimpleTakes: documents the simple reading takes, each as kubectl's
// reader reads it.
func TestSimpleTakes(t *testing.T) {
	for _, text := range []string{
		"apiVersion: v1\nkind: A\nmetadata:\n  name: x\n  labels:\n    app.kubernetes.io/name: web\n",
		"a: 1\nb: -7\nc: 0\nd: true\ne: false\nf: null\ng:\nh: \"quoted # not a comment: x\"\ni: 'single \\ back'\n",
		"# a comment\n\nspec:\n  # another\n  list:\n  - a\n  - b\n  maps:\n    - name: x\n      ports:\n      - 80\n    -   name: w\n        deep:\n          k: v\n",
		"a: http://example.com/x?y=1&z=<2>\nb: some words, [brackets] and {braces}\nc: a:b\n$schema: x\nd: ''\n",
		"a: 123456789012345678\nb: -123456789012345678\n",
		"j: 'say \"hi\" <&> \\\\'\nk: a\\b\n", // what JSON escapes
	} {
		if !sameAsKubectl(t, "f", []byte(text)) {
			t.Errorf("not taken:\n%s", text)
		}
	}
}

// TestSimpleDeclines: what the simple reading leaves to a YAML parser.
func TestSimpleDeclines(t *testing.T) {
	for _, text := range []string{
		"a: yes\n", "a: No\n", "a: ON\n", "a: NULL\n", "a: ~\n", "a: y\n", // YAML 1.1 words
		"on: 1\n", "y: 1\n", "True: 1\n", "1: a\n", "NaN: 1\n", // keys that are not strings there
		"a: 1.5\n", "a: 007\n", "a: +1\n", "a: 1_000\n", "a: 0x1F\n", "a: 1234567890123456789\n", "a: 2024-01-01\n", "a: .inf\n",
		"a: b # comment\n", "a: # comment\n  b: 1\n", // comments after content
		"a: [1, 2]\n", "a: {b: 1}\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "a: |\n  text\n", "a: >\n  text\n",
		"a: \"esc\\\"aped\"\n", "a: \"two\" \"strings\"\n", "a: 'it''s'\n", "a: \"open\n",
		"a: b: c\n", "a: b:\n", "a: plain\n  continued\n", "a:\n  plain on its own line\n",
		"a: 1\na: 2\n",           // a key given twice
		"a:\n- - 1\n",            // a sequence in a sequence
		"a:\n-\n  b: 1\n",        // an item's block below its dash
		"  a: 1\n  b: 2\n",       // an indented document
		"a:\n    b: 1\n  c: 2\n", // indentation that matches no level
		"a: 1\n- b\n",            // an item where a key belongs
		"\"a\": 1\n", "a b: 1\n", "a : 1\n", "a:1\n",
		"a: t\u00e9\n", "a:\tb\n", "a: b\r\nc: d\r\n", "\ufeffa: 1\n", // not printable ASCII
		"%YAML 1.1\na: 1\n", "a: 1\n...\n", "a: 1\n--- b\n",
		"- a\n", "just words\n", "",
		deep(simpleDepth + 1),               // left to the parser that knows kubectl's limit
		strings.Repeat("k", 1025) + ": 1\n", // a key longer than YAML allows
	} {
		if _, _, ok := simpleYAML([]byte(text)); ok {
			t.Errorf("taken: %q", text)
		}
	}
}

// deep is a document of mappings nested n deep.
func deep(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString(strings.Repeat(" ", i) + "a:\n")
	}
	b.WriteString(strings.Repeat(" ", n) + "b: 1\n")
	return b.String()
}

func TestSimpleDepth(t *testing.T) {
	if !sameAsKubectl(t, "f", []byte(deep(simpleDepth-1))) {
		t.Errorf("%d deep: not taken", simpleDepth-1)
	}
}
