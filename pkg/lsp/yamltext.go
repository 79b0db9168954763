package lsp

import (
	"strings"
)

// The editor's questions are about text being typed, which often does not
// parse as YAML: where the cursor is in the field tree, and where a token
// ends, are read from the lines' indentation and keys, as the block
// style people write Kubernetes objects in lays them out.

// line is what a block-style YAML line says: its "- " markers, the key it
// starts (if any), and whether the key's value is on later lines.
type line struct {
	dashes   []int  // columns (0-based, in bytes) of each "- " item marker
	content  int    // column of the content after the markers; -1 for a blank or comment line
	key      string // the key of "key:" or "key: value", "" if none
	blockKey bool   // "key:" with nothing but a comment after it
	docStart bool   // a "---" document separator
}

func parseLine(s string) line {
	l := line{content: -1}
	trimmed := strings.TrimRight(s, " \t\r")
	if trimmed == "---" || strings.HasPrefix(trimmed, "--- ") {
		l.docStart = true
		return l
	}
	i := 0
	for i < len(trimmed) && trimmed[i] == ' ' {
		i++
	}
	for i < len(trimmed) && trimmed[i] == '-' && (i+1 == len(trimmed) || trimmed[i+1] == ' ') {
		l.dashes = append(l.dashes, i)
		i++
		for i < len(trimmed) && trimmed[i] == ' ' {
			i++
		}
	}
	if i >= len(trimmed) || trimmed[i] == '#' {
		if len(l.dashes) > 0 {
			l.content = i
		}
		return l
	}
	l.content = i
	key, rest, ok := cutKey(trimmed[i:])
	if ok {
		l.key = key
		rest = strings.TrimSpace(rest)
		l.blockKey = rest == "" || strings.HasPrefix(rest, "#") || rest == "|" || rest == ">" ||
			strings.HasPrefix(rest, "|") || strings.HasPrefix(rest, ">")
	}
	return l
}

// cutKey splits "key: rest" (or "key:" at the end), with a quoted key
// unquoted; ok is false when s starts no key.
func cutKey(s string) (key, rest string, ok bool) {
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		q := s[0]
		end := strings.IndexByte(s[1:], q)
		if end < 0 {
			return "", "", false
		}
		after := s[end+2:]
		if !strings.HasPrefix(after, ":") {
			return "", "", false
		}
		return s[1 : end+1], after[1:], true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			if i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\t' {
				return s[:i], s[i+1:], true
			}
		case ' ':
			if i+1 < len(s) && s[i+1] == '#' {
				return "", "", false
			}
		case '{', '[', '"', '\'':
			if i == 0 {
				return "", "", false
			}
		}
	}
	return "", "", false
}

// itemStep is the step into a sequence's item, in a path.
const itemStep = "[]"

// frame is a node the lines above a point opened and that still holds it:
// a key whose value is below, or a sequence's item.
type frame struct {
	col  int
	item bool
	key  string
	id   int // tells one mapping (or item) from another at the same path
}

// cursor is where a point of the text is in the field tree of its
// document: the frames from the root to the mapping the point is in, the
// key of its line when the point is on one, and the keys of that mapping
// on other lines.
type cursor struct {
	parents  []frame
	key      string
	siblings map[string]bool
}

// path is the cursor's parents as steps (keys, and itemStep for items).
func (c cursor) path() []string {
	out := make([]string, 0, len(c.parents))
	for _, f := range c.parents {
		if f.item {
			out = append(out, itemStep)
		} else {
			out = append(out, f.key)
		}
	}
	return out
}

// cursorAt reads where lines[row], byte column col, is. A point left of a
// line's content, or on a blank line, is in the mapping its column lines
// up with (where a new key typed there would go).
func cursorAt(lines []string, row, col int) cursor {
	first, last := row, row
	for first > 0 && !parseLine(lines[first]).docStart {
		first--
	}
	if parseLine(lines[first]).docStart {
		first++
	}
	for last+1 < len(lines) && !parseLine(lines[last+1]).docStart {
		last++
	}
	var stack []frame
	serial := 0
	push := func(f frame) {
		serial++
		f.id = serial
		stack = append(stack, f)
	}
	// settle pops the frames a node starting at col closes; within
	// markers, a key's frame at the marker's column stays ("key:\n- a").
	settle := func(col int, marker bool) {
		for len(stack) > 0 {
			top := stack[len(stack)-1]
			if top.col < col || (marker && top.col == col && !top.item) {
				return
			}
			stack = stack[:len(stack)-1]
		}
	}
	parentID := func() int {
		if len(stack) == 0 {
			return 0
		}
		return stack[len(stack)-1].id
	}
	var c cursor
	keys := map[int]map[string]bool{} // by the id of their mapping's frame
	cursorID := -1
	for r := first; r <= last; r++ {
		l := parseLine(lines[r])
		atCursor := r == row
		if atCursor && (l.content < 0 || col < l.content) {
			// The cursor, left of the content or on a blank line: stop
			// at the last marker left of it.
			n := 0
			for n < len(l.dashes) && l.dashes[n] < col {
				n++
			}
			for i, d := range l.dashes[:n] {
				settle(d, i == 0)
				push(frame{col: d, item: true})
			}
			settle(col, false)
			c.parents = append([]frame(nil), stack...)
			cursorID = parentID()
			// The rest of the line (right of the cursor) is another
			// node's: it does not count.
			continue
		}
		if l.content < 0 {
			continue
		}
		for i, d := range l.dashes {
			settle(d, i == 0)
			push(frame{col: d, item: true})
		}
		settle(l.content, false)
		if l.key != "" {
			id := parentID()
			if keys[id] == nil {
				keys[id] = map[string]bool{}
			}
			if atCursor {
				c.parents = append([]frame(nil), stack...)
				c.key = l.key
				cursorID = id
			} else {
				keys[id][l.key] = true
			}
			push(frame{col: l.content, key: l.key})
		} else if atCursor {
			c.parents = append([]frame(nil), stack...)
			cursorID = parentID()
		}
	}
	c.siblings = keys[cursorID]
	if c.siblings == nil {
		c.siblings = map[string]bool{}
	}
	return c
}

// fieldPath drops the item steps of a path: the path of a schema field,
// as explain takes it (into arrays' items on the way).
func fieldPath(steps []string) []string {
	var out []string
	for _, s := range steps {
		if s != itemStep {
			out = append(out, s)
		}
	}
	return out
}
