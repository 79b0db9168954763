package manifest

import (
	"io"
	"sync"
)

// Sources reads what a path names when it is not a file or directory on
// this machine: standard input ("-"), and the sources package's URLs, git
// revisions and Helm charts. Every reader of paths (ReadPaths, OpenPaths,
// the catalog's --crds) asks it first, so that each verb accepts them all
// wherever it accepts a path.
type Sources interface {
	// Texts returns the texts path names, in order, and whether it names
	// a source it knows; when it does not, the path is read from the
	// file system. recursive is the reader's: a directory of a source is
	// read to its depth. A source that cannot be read is an *Error with
	// Unopened set, naming the path and the cause.
	Texts(path string, recursive bool) (texts []Text, ok bool, err error)
}

// Text is one file's text read from a source, under the name messages
// give its positions by (a URL, git:REV:PATH, a file of a chart).
type Text struct {
	Name string
	Data []byte
}

// Stdin is the Sources of standard input alone, read from r when "-" is
// first named (a second "-" reads what is left: nothing); with r nil, "-"
// is an error.
func Stdin(r io.Reader) Sources { return &stdin{r: r} }

type stdin struct {
	mu   sync.Mutex
	r    io.Reader
	read bool
}

func (s *stdin) Texts(path string, _ bool) ([]Text, bool, error) {
	if path != "-" {
		return nil, false, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.r == nil {
		return nil, true, &Error{File: "-", Msg: "standard input is not read here", Unopened: true}
	}
	if s.read {
		return []Text{{Name: "-"}}, true, nil
	}
	s.read = true
	data, err := io.ReadAll(s.r)
	if err != nil {
		return nil, true, &Error{File: "-", Msg: err.Error()}
	}
	return []Text{{Name: "-", Data: data}}, true, nil
}

// Entry is one file of a list of paths: a file on this machine (Path), or
// a text a source gave (Text).
type Entry struct {
	Path string
	Text *Text
}

// Name is what messages call the entry.
func (e Entry) Name() string {
	if e.Text != nil {
		return e.Text.Name
	}
	return e.Path
}

// Entries lists the files paths name, in order: the texts src reads for a
// path it knows, a file itself, and a directory's files with one of
// Extensions (recursively when recursive is set). With src nil, only
// files are read.
func Entries(paths []string, recursive bool, src Sources) ([]Entry, error) {
	var out []Entry
	for _, p := range paths {
		if src != nil {
			texts, ok, err := src.Texts(p, recursive)
			if err != nil {
				return nil, err
			}
			if ok {
				for i := range texts {
					out = append(out, Entry{Text: &texts[i]})
				}
				continue
			}
		}
		if p == "-" {
			return nil, &Error{File: p, Msg: "standard input is not read here", Unopened: true}
		}
		files, err := filesOf(p, recursive)
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			out = append(out, Entry{Path: f})
		}
	}
	return out, nil
}
