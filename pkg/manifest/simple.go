package manifest

import (
	"slices"
	"strconv"
	"strings"
)

// simpleYAML decodes the plainest YAML documents, which most manifests
// are, without a YAML parser: block mappings and sequences indented with
// spaces, keys of letters, digits and -._/$, and values that are plain
// words, quoted strings without escapes, decimal integers, true, false or
// null. It gives what kubectl's reader (sigs.k8s.io/yaml) gives, the JSON
// and the object decoded from it, and declines (ok false) anything else:
// other characters (tabs, CR, anything not printable ASCII), comments
// after content, flow collections, anchors, tags, block scalars, values
// that span lines, nesting deeper than simpleDepth, the words YAML 1.1
// reads as booleans or null in other spellings (yes, Off, NULL, ...),
// numbers other than plain integers, and keys given twice. Declined
// documents are read by kubectl's reader itself; a test over the test data
// and corpus and a fuzz target check that the two agree on what this one
// takes.
func simpleYAML(text []byte) (js []byte, obj map[string]any, ok bool) {
	// One string for the whole document: its keys and values are parts
	// of it, not strings of their own.
	p := simpleParser{}
	if !p.split(string(text)) || len(p.lines) == 0 || p.lines[0].indent != 0 {
		return nil, nil, false
	}
	obj, ok = p.mapping(0)
	if !ok || p.i != len(p.lines) {
		return nil, nil, false
	}
	return appendJSON(make([]byte, 0, len(text)+len(text)/2), obj), obj, true
}

// simpleLine is a line with content: its indentation and what follows it.
type simpleLine struct {
	indent int
	text   string
}

type simpleParser struct {
	lines []simpleLine
	i     int // the next line to read
	depth int // of the block being read
}

// simpleDepth is the deepest nesting read here; manifests go a few dozen
// levels deep, and deeper ones are left to the parser that knows where
// kubectl's reader stops (10,000 levels).
const simpleDepth = 100

// split keeps the lines with content, and declines characters outside
// printable ASCII and lines that are directives or document markers.
func (p *simpleParser) split(text string) bool {
	for i := 0; i < len(text); i++ {
		if c := text[i]; (c < ' ' && c != '\n') || c > '~' {
			return false
		}
	}
	p.lines = make([]simpleLine, 0, strings.Count(text, "\n")+1)
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		content := strings.TrimLeft(line, " ")
		indent := len(line) - len(content)
		content = strings.TrimRight(content, " ")
		if len(content) == 0 || content[0] == '#' {
			continue
		}
		if strings.HasPrefix(content, "---") || strings.HasPrefix(content, "...") || content[0] == '%' {
			return false
		}
		p.lines = append(p.lines, simpleLine{indent: indent, text: content})
	}
	return true
}

// value reads the block that starts at the current line, at indent.
func (p *simpleParser) value(indent int) (any, bool) {
	if p.depth >= simpleDepth {
		return nil, false
	}
	p.depth++
	defer func() { p.depth-- }()
	if isItem(p.lines[p.i].text) {
		return p.sequence(indent)
	}
	if _, _, ok := entry(p.lines[p.i].text); ok {
		return p.mapping(indent)
	}
	return nil, false // a scalar on a line of its own
}

// mapping reads the entries at indent.
func (p *simpleParser) mapping(indent int) (map[string]any, bool) {
	m := map[string]any{}
	for p.i < len(p.lines) && p.lines[p.i].indent == indent && !isItem(p.lines[p.i].text) {
		key, rest, ok := entry(p.lines[p.i].text)
		if !ok {
			return nil, false
		}
		if _, twice := m[key]; twice {
			return nil, false
		}
		p.i++
		if len(rest) > 0 {
			v, ok := scalar(rest)
			if !ok || p.i < len(p.lines) && p.lines[p.i].indent > indent {
				return nil, false // or a value that goes on
			}
			m[key] = v
			continue
		}
		// The value is the block below: deeper, or a sequence at the
		// key's own indent; else null.
		if p.i < len(p.lines) {
			next := p.lines[p.i]
			if next.indent > indent || next.indent == indent && isItem(next.text) {
				v, ok := p.value(next.indent)
				if !ok {
					return nil, false
				}
				m[key] = v
				continue
			}
		}
		m[key] = nil
	}
	return m, true
}

// sequence reads the items ("- ...") at indent.
func (p *simpleParser) sequence(indent int) ([]any, bool) {
	items := []any{}
	for p.i < len(p.lines) && p.lines[p.i].indent == indent && isItem(p.lines[p.i].text) {
		rest := p.lines[p.i].text[1:]
		content := strings.TrimLeft(rest, " ")
		if len(content) == 0 || isItem(content) {
			return nil, false // the item's block below, or a sequence in a sequence
		}
		if _, _, ok := entry(content); ok {
			// A mapping whose first key is on the dash's line: its keys
			// are indented as that one.
			p.lines[p.i] = simpleLine{indent: indent + 1 + len(rest) - len(content), text: content}
			m, ok := p.mapping(p.lines[p.i].indent)
			if !ok {
				return nil, false
			}
			items = append(items, m)
			continue
		}
		v, ok := scalar(content)
		p.i++
		if !ok || p.i < len(p.lines) && p.lines[p.i].indent > indent {
			return nil, false
		}
		items = append(items, v)
	}
	return items, true
}

func isItem(text string) bool {
	return text[0] == '-' && (len(text) == 1 || text[1] == ' ')
}

// entry splits "key: rest" or "key:"; ok is false for anything else, and
// for keys that YAML would not read as the string they spell.
func entry(text string) (key, rest string, ok bool) {
	i := 0
	for i < len(text) && keyByte(text[i]) {
		i++
	}
	if i == 0 || i == len(text) || text[i] != ':' || i+1 < len(text) && text[i+1] != ' ' {
		return "", "", false
	}
	if i > simpleKeyMax {
		return "", "", false
	}
	key = text[:i]
	if c := key[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$') || yaml11Words[key] || !stringLike(key) {
		return "", "", false
	}
	return key, strings.TrimLeft(text[i+1:], " "), true
}

// simpleKeyMax is the longest key read here: YAML allows a key without
// "? " to be at most 1024 characters long, and the longest a Kubernetes
// label or annotation key can be is 317.
const simpleKeyMax = 512

func keyByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' || c == '/' || c == '$'
}

// scalar reads a value written on its key's or dash's line.
func scalar(text string) (any, bool) {
	switch c := text[0]; {
	case c == '"' || c == '\'':
		// Quoted, without escapes or quotes inside.
		if len(text) < 2 || text[len(text)-1] != c || strings.IndexByte(text[1:len(text)-1], c) >= 0 ||
			c == '"' && strings.IndexByte(text, '\\') >= 0 {
			return nil, false
		}
		return text[1 : len(text)-1], true
	case c >= '0' && c <= '9' || c == '-':
		return integer(text)
	case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$' || c == '/':
		if strings.IndexByte(text, '#') >= 0 || strings.Contains(text, ": ") || text[len(text)-1] == ':' {
			return nil, false // a comment, or a mapping where none can be
		}
		switch text {
		case "true":
			return true, true
		case "false":
			return false, true
		case "null":
			return nil, true
		}
		if yaml11Words[text] {
			return nil, false
		}
		return text, true
	}
	return nil, false
}

// integer reads a decimal integer small enough for int64 (0, -5, 42, not
// 007, +1, 1_000 or 0x1F, which YAML 1.1 reads in ways of its own).
func integer(text string) (any, bool) {
	digits := text
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || digits[0] == '0' && len(digits) > 1 {
		return nil, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return nil, false
		}
	}
	n, err := strconv.ParseInt(text, 10, 64)
	return n, err == nil
}

// yaml11Words are the plain words that YAML 1.1 (kubectl's reader) reads
// as booleans or null, in every spelling it knows.
var yaml11Words = map[string]bool{}

func init() {
	for _, w := range []string{"y", "yes", "true", "on", "n", "no", "false", "off", "null"} {
		for _, s := range []string{w, string(w[0]-'a'+'A') + w[1:], strings.ToUpper(w)} {
			yaml11Words[s] = true
		}
	}
}

// appendJSON writes v as encoding/json writes it (keys in order, <, > and &
// escaped), for the values simpleYAML makes, whose strings are printable
// ASCII.
func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case map[string]any:
		var buf [16]field
		fields := buf[:0]
		for k, e := range v {
			fields = append(fields, field{k, e})
		}
		slices.SortFunc(fields, func(a, b field) int { return strings.Compare(a.key, b.key) })
		b = append(b, '{')
		for i, f := range fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, f.key)
			b = append(b, ':')
			b = appendJSON(b, f.value)
		}
		return append(b, '}')
	case []any:
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, e)
		}
		return append(b, ']')
	case string:
		return appendString(b, v)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case bool:
		return strconv.AppendBool(b, v)
	}
	return append(b, "null"...)
}

// field is a mapping's entry, to write in the order of keys.
type field struct {
	key   string
	value any
}

func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '<', '>', '&':
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
