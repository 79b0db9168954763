package manifest

import (
	"io"
	"sync"

	yaml "go.yaml.in/yaml/v3"
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
	// Rendered, when set, says the text is one object a source rendered
	// (flux:) from a file of the user's, Name: its problems are placed in
	// that file, not in the rendered text.
	Rendered *Rendered
}

// Rendered is where a rendered object came from.
type Rendered struct {
	// Via says what rendered it, for every message about it:
	// "Kustomization flux-system/apps (clusters/prod/apps.yaml:1)".
	Via string
	// Line and Column are where the object starts in the file (0: not
	// known, as for what a template rendered).
	Line, Column int
	// Node is the object's node in the file, with its positions: a field
	// of the rendered object is placed at the field, or its nearest
	// ancestor, as the file writes it (nil: at Line).
	Node *yaml.Node
	// Namespace is where the object goes when it names none, as the tool
	// that applies it puts it ("": where the command puts it).
	Namespace string
	// Warnings are what the user should know of how it was rendered (a
	// variable substituted with nothing), placed in the file.
	Warnings []*Error
	// Err, when set, says why there is no object: what rendering it
	// answered (a path that does not exist, values a chart refuses),
	// placed at Line of the file.
	Err string
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
