package manifest

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Extensions are the file endings read from a directory, as kubectl reads
// them; a file named explicitly is read whatever its ending.
var Extensions = []string{".json", ".yaml", ".yml"}

// ReadPaths reads every path: what src reads ("-", standard input, and
// the sources package's URLs, git revisions and charts), a directory's
// files with one of Extensions (recursively when recursive is set), any
// other path as a file.
func ReadPaths(paths []string, recursive bool, src Sources) ([]Document, error) {
	return strict(readPathsLenient(paths, recursive, src))
}

// readPathsLenient reads as ReadPaths does, except that a document that
// cannot be decoded (malformed YAML or JSON, a duplicate key, a scalar) is
// returned as a Document with Err set, and reading goes on. Paths that
// cannot be read are still errors. Documents are decoded on every core;
// they are in the order of paths, and of the files in each directory.
func readPathsLenient(paths []string, recursive bool, src Sources) ([]Document, error) {
	chunks, err := splitPaths(paths, recursive, src)
	if err != nil {
		return nil, err
	}
	return decodeAll(chunks), nil
}

// splitPaths reads every path as readPathsLenient does and finds the
// documents of each file, without decoding them.
func splitPaths(paths []string, recursive bool, src Sources) ([]Chunk, error) {
	in, err := OpenPaths(paths, recursive, src)
	if err != nil {
		return nil, err
	}
	var chunks []Chunk
	err = in.Each(func(c Chunk) bool {
		chunks = append(chunks, c)
		return true
	})
	return chunks, err
}

// Files lists the files paths name, in order: a file itself, a
// directory's files with one of Extensions (recursively when recursive is
// set), and "-" (standard input) as it is.
func Files(paths []string, recursive bool) ([]string, error) {
	var files []string
	for _, p := range paths {
		more, err := filesOf(p, recursive)
		if err != nil {
			return nil, err
		}
		files = append(files, more...)
	}
	return files, nil
}

// filesOf lists the files a path names.
func filesOf(path string, recursive bool) ([]string, error) {
	if path == "-" {
		return []string{path}, nil
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, &Error{File: path, Msg: describeFSError(err), Unopened: true}
	}
	if !info.IsDir() {
		return []string{path}, nil
	}
	root := path
	if l, err := os.Lstat(path); err == nil && l.Mode()&fs.ModeSymlink != 0 {
		// A link to a directory: walk the directory (WalkDir does not
		// follow a link it starts at), its files named under the link.
		root = path + string(filepath.Separator)
	}
	var files []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return &Error{File: p, Msg: describeFSError(err), Unopened: true}
		}
		if d.IsDir() {
			if p != root && !recursive {
				return filepath.SkipDir
			}
			return nil
		}
		if HasExtension(p) {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// ReadFile reads one file.
func ReadFile(path string) ([]Document, error) {
	return strict(readFileLenient(path))
}

func readFileLenient(path string) ([]Document, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: describeFSError(err), Unopened: true}
	}
	return readLenient(path, data), nil
}

// HasExtension tells whether p ends in one of Extensions (in any case).
func HasExtension(p string) bool {
	ext := strings.ToLower(filepath.Ext(p))
	for _, e := range Extensions {
		if ext == e {
			return true
		}
	}
	return false
}

func describeFSError(err error) string {
	switch {
	case os.IsNotExist(err):
		return "no such file or directory"
	case os.IsPermission(err):
		return "permission denied"
	}
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err.Error()
	}
	return err.Error()
}
