package manifest

import (
	"bufio"
	"bytes"
	"io"
	"os"
)

// Input is the documents of a list of files (and of standard input), read
// afresh each time they are walked, a document at a time: a walk over a
// large input holds the documents being worked on, not the whole input.
type Input struct {
	sources []*source
}

// source is one file of an Input, or text held in memory.
type source struct {
	name string
	// data is the text of what can be read only once (standard input, a
	// pipe) or was never a file, kept from the first walk on.
	data  []byte
	kept  bool
	first os.FileInfo // a file as it was when first read
	// rendered: the text is an object a source rendered (see Rendered).
	rendered *Rendered
}

// OpenPaths lists the files of paths as ReadPaths reads them: what src
// reads ("-", standard input, and the sources package's URLs, git
// revisions and charts: read now), a directory's files with one of
// Extensions (recursively when recursive is set), any other path as a
// file.
func OpenPaths(paths []string, recursive bool, src Sources) (*Input, error) {
	entries, err := Entries(paths, recursive, src)
	if err != nil {
		return nil, err
	}
	in := &Input{}
	for _, e := range entries {
		if e.Text != nil {
			in.sources = append(in.sources, &source{name: e.Text.Name, data: e.Text.Data, kept: true, rendered: e.Text.Rendered})
		} else {
			in.sources = append(in.sources, &source{name: e.Path})
		}
	}
	return in, nil
}

// InputOf is the Input of one text held in memory.
func InputOf(name string, data []byte) *Input {
	return &Input{sources: []*source{{name: name, data: data, kept: true}}}
}

// InMemory tells whether the input's whole text is held in memory (text
// given as it is, or standard input after a first walk): keeping what a
// walk decoded then costs no more than the text does.
func (in *Input) InMemory() bool {
	for _, s := range in.sources {
		if !s.kept {
			return false
		}
	}
	return true
}

// Load reads the text of every file of the input into memory now: for a
// reader that holds every document anyway, each file is then read once
// and a walk's documents may be kept for the next (see InMemory).
func (in *Input) Load() error {
	for _, s := range in.sources {
		if s.kept {
			continue
		}
		file, err := os.Open(s.name)
		if err != nil {
			return &Error{File: s.name, Msg: describeFSError(err), Unopened: true}
		}
		data, err := io.ReadAll(file)
		file.Close()
		if err != nil {
			return &Error{File: s.name, Msg: describeFSError(err)}
		}
		s.data, s.kept = data, true
	}
	return nil
}

// Each passes f every chunk of the input in order, until f returns false.
// A YAML file is read a document at a time, each passed on when read; a
// JSON stream is read whole (where a value ends is known only by reading
// it); a pipe is read whole the first time and kept. A file that cannot
// be read, or that is not the file an earlier walk read (replaced,
// written to or truncated since), is an error: one walk's answers would
// not agree with another's.
func (in *Input) Each(f func(Chunk) bool) error {
	return in.each(f, "")
}

// Read decodes every document of the input, as ReadPaths does.
func (in *Input) Read() ([]Document, error) {
	var chunks []Chunk
	err := in.Each(func(c Chunk) bool {
		chunks = append(chunks, c)
		return true
	})
	return strict(decodeAll(chunks), err)
}

// EachMentioning walks the input as Each does, passing f only the chunks
// whose text holds s; the other documents of a YAML file are not read
// into memory.
func (in *Input) EachMentioning(s string, f func(Chunk) bool) error {
	return in.each(func(c Chunk) bool { return !c.Mentions(s) || f(c) }, s)
}

// each walks the input; with only set, a YAML file's documents that do
// not hold it may be passed without their text.
func (in *Input) each(f func(Chunk) bool, only string) error {
	for i, s := range in.sources {
		more, err := s.each(func(c Chunk) bool {
			c.source = i
			return f(c)
		}, only)
		if err != nil || !more {
			return err
		}
	}
	return nil
}

func (s *source) each(f func(Chunk) bool, only string) (bool, error) {
	if r := s.rendered; r != nil && r.Err != "" {
		return eachOf([]Chunk{{name: s.name, line: r.Line, column: r.Column, rendered: r,
			err: &Error{File: s.name, Line: r.Line, Column: r.Column, Msg: r.Err}}}, f), nil
	}
	if s.kept {
		chunks := Split(s.name, s.data)
		for i := range chunks {
			chunks[i].rendered = s.rendered
		}
		return eachOf(chunks, f), nil
	}
	file, err := os.Open(s.name)
	if err != nil {
		return false, &Error{File: s.name, Msg: describeFSError(err), Unopened: true}
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil {
		return false, &Error{File: s.name, Msg: describeFSError(err)}
	}
	switch {
	case !info.Mode().IsRegular():
		if s.data, err = io.ReadAll(file); err != nil {
			return false, &Error{File: s.name, Msg: describeFSError(err)}
		}
		s.kept = true
		return eachOf(Split(s.name, s.data), f), nil
	case s.first == nil:
		s.first = info
	case !sameFile(s.first, info):
		return false, &Error{File: s.name, Msg: "changed while it was being read: run again"}
	}
	r := bufio.NewReaderSize(file, 64<<10)
	if start, err := r.Peek(r.Size()); err == nil && len(bytes.TrimLeft(start, " \t\r\n")) == 0 || looksLikeJSON(start) {
		// JSON, or not yet known after a buffer of blanks.
		data, err := io.ReadAll(r)
		if err != nil {
			return false, &Error{File: s.name, Msg: describeFSError(err)}
		}
		return eachOf(Split(s.name, data), f), nil
	}
	more, err := cutYAML(s.name, &fileText{file: file, lines: r, only: []byte(only)}, f)
	if err != nil {
		return false, &Error{File: s.name, Msg: describeFSError(err)}
	}
	return more, nil
}

// eachOf passes f each chunk until it returns false.
func eachOf(chunks []Chunk, f func(Chunk) bool) bool {
	for _, c := range chunks {
		if !f(c) {
			return false
		}
	}
	return true
}

// sameFile tells whether b is the file a was: the same file, size and
// modification time.
func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
