package manifest

import (
	"bufio"
	"bytes"
	"io"
)

// splitYAML cuts data at lines that are a document separator (see
// cutYAML); each chunk's text is a slice of data.
func splitYAML(name string, data []byte) []Chunk {
	var chunks []Chunk
	cutYAML(name, &heldText{data: data}, func(c Chunk) bool {
		chunks = append(chunks, c)
		return true
	})
	return chunks
}

// cutYAML passes f each document of a YAML stream as soon as it is read,
// until the stream ends or f returns false: the text between lines that
// are a document separator, "---" followed by nothing but blanks or a
// comment, as kubectl's reader cuts them. It returns false when f did, and
// the error of a read that failed.
func cutYAML(name string, text docText, f func(Chunk) bool) (bool, error) {
	startLine, line := 1, 1
	for {
		head, n, err := text.line()
		if err != nil && err != io.EOF {
			return false, err
		}
		if n == 0 { // nothing more
			break
		}
		if isSeparator(head) {
			doc, size, err := text.cut(n)
			if err != nil {
				return false, err
			}
			if !f(Chunk{name: name, line: startLine, text: doc, size: size}) {
				return false, nil
			}
			startLine = line + 1
		}
		line++
		if err == io.EOF {
			break
		}
	}
	doc, size, err := text.cut(0)
	if err != nil {
		return false, err
	}
	return f(Chunk{name: name, line: startLine, text: doc, size: size}), nil
}

// docText is where the text of the documents cutYAML cuts is: data held
// in memory, or a file.
type docText interface {
	// line reads the next line onto the document being read: its length
	// with its "\n" (none at the end of the stream), and head, enough of
	// it to tell whether it is a separator (all of it, when it starts
	// with "---"); 0 and io.EOF at the end.
	line() (head []byte, n int, err error)
	// cut ends the document being read before its last n bytes, returns
	// its text and length, and starts the next document after them.
	cut(n int) ([]byte, int, error)
}

// heldText is data held in memory: each document's text is a slice of it.
type heldText struct {
	data       []byte
	start, pos int
}

func (h *heldText) line() ([]byte, int, error) {
	if h.pos == len(h.data) {
		return nil, 0, io.EOF
	}
	end := len(h.data)
	if i := bytes.IndexByte(h.data[h.pos:], '\n'); i >= 0 {
		end = h.pos + i + 1
	}
	l := h.data[h.pos:end]
	h.pos = end
	return l, len(l), nil
}

func (h *heldText) cut(n int) ([]byte, int, error) {
	doc := h.data[h.start : h.pos-n]
	h.start = h.pos
	return doc, len(doc), nil
}

// fileText is a file read a line at a time to find where each document
// ends; the document is then read from the file whole, into memory of its
// size. A document over MaxDocument is not read (only its length
// counted): it is never decoded. With only set, neither is a document
// none of whose lines holds it (a line longer than the reader's buffer,
// which it could straddle, counts as holding it).
type fileText struct {
	file      io.ReaderAt
	lines     *bufio.Reader // the file from its start
	only      []byte
	start     int64  // where the document being read starts
	pos       int64  // where the next line starts
	head      []byte // the line being read, while it could be a separator
	mentioned bool   // whether the document so far holds only
}

func (t *fileText) line() ([]byte, int, error) {
	t.head = t.head[:0]
	n, keep := 0, true
	for {
		part, err := t.lines.ReadSlice('\n')
		if n == 0 && len(part) >= 3 && !bytes.HasPrefix(part, []byte("---")) {
			keep = false // not a separator
		}
		if keep {
			t.head = append(t.head, part...)
		}
		if len(t.only) > 0 && !t.mentioned {
			t.mentioned = err == bufio.ErrBufferFull || n > 0 || bytes.Contains(part, t.only)
		}
		n += len(part)
		if err == bufio.ErrBufferFull {
			continue
		}
		t.pos += int64(n)
		if err == io.EOF && n > 0 {
			err = nil // the last line, without "\n"; io.EOF on the next read
		}
		if !keep {
			return nil, n, err
		}
		return t.head, n, err
	}
}

func (t *fileText) cut(n int) ([]byte, int, error) {
	size := t.pos - int64(n) - t.start
	var doc []byte
	if size <= MaxDocument && (len(t.only) == 0 || t.mentioned) {
		doc = make([]byte, size)
		if _, err := t.file.ReadAt(doc, t.start); err != nil {
			return nil, 0, err
		}
	}
	t.start, t.mentioned = t.pos, false
	return doc, int(size), nil
}

func isSeparator(line []byte) bool {
	if !bytes.HasPrefix(line, []byte("---")) {
		return false
	}
	rest := bytes.TrimSpace(line[3:])
	return len(rest) == 0 || rest[0] == '#'
}
