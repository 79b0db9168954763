package lsp

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// tokenRange is the range (0-based byte columns) on a line of the key that
// starts at col, or of its value when value is set and the value is on
// the same line; a key or value that cannot be found gives the rest of
// the line from col.
func tokenRange(s string, col int, value bool) (start, end int) {
	if col < 0 || col > len(s) {
		return 0, len(s)
	}
	rest := s[col:]
	key, after, ok := cutKey(rest)
	if !ok {
		return col, col + len(strings.TrimRight(stripComment(rest), " \t\r"))
	}
	keyEnd := col + len(key)
	if rest[0] == '"' || rest[0] == '\'' {
		keyEnd += 2
	}
	v := stripComment(after)
	trimmed := strings.TrimSpace(v)
	if !value || trimmed == "" || trimmed == "|" || trimmed == ">" || strings.HasPrefix(trimmed, "|") || strings.HasPrefix(trimmed, ">") {
		return col, keyEnd
	}
	vStart := keyEnd + 1 + (len(v) - len(strings.TrimLeft(v, " \t")))
	return vStart, vStart + len(trimmed)
}

// stripComment cuts a " # comment" off a line, outside quotes.
func stripComment(s string) string {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return s[:i]
		}
	}
	return s
}

// utf16Column is the LSP column (UTF-16 code units) of byte offset b of s.
func utf16Column(s string, b int) int {
	if b > len(s) {
		b = len(s)
	}
	n := 0
	for _, r := range s[:b] {
		n += utf16.RuneLen(r)
	}
	return n
}

// byteColumn is the byte offset of LSP column c (UTF-16 code units) of s.
func byteColumn(s string, c int) int {
	n := 0
	for i, r := range s {
		if n >= c {
			return i
		}
		n += utf16.RuneLen(r)
	}
	return len(s)
}

// runeToByte is the byte offset of the 1-based column (in characters) that
// YAML positions use.
func runeToByte(s string, column int) int {
	b := 0
	for i := 1; i < column && b < len(s); i++ {
		_, size := utf8.DecodeRuneInString(s[b:])
		b += size
	}
	return b
}
