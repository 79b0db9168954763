package manifest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// templateError says what a document that is not YAML is when it holds
// template actions ("{{ ... }}"): a template, most often a Helm chart's,
// which is YAML only once rendered. The parser's own message about it
// (such as an "invalid map key" naming a Go map) says nothing useful.
// Other errors are returned as they are.
func templateError(name string, text []byte, offset int, err error) error {
	line := actionLine(text)
	if line == 0 {
		return err
	}
	msg := "a template, not YAML until it is rendered (it holds {{ ... }}): render it first, as helm template does"
	if chart := chartOf(name); chart != "" {
		msg = fmt.Sprintf("a template of the Helm chart %s, not YAML until it is rendered: render it with helm template, or name the chart itself where CRDs are read (%s)", chart, chart)
	}
	return &Error{File: name, Line: line + offset, Msg: msg}
}

// actionLine is the first line (1-based) that holds "{{", 0 when none
// does.
func actionLine(text []byte) int {
	i := bytes.Index(text, []byte("{{"))
	if i < 0 {
		return 0
	}
	return bytes.Count(text[:i], []byte("\n")) + 1
}

// chartOf is the chart directory a file is in (the nearest directory
// above it with a Chart.yaml), "" when none is.
func chartOf(file string) string {
	dir := filepath.Dir(file)
	for range 16 {
		if _, err := os.Stat(filepath.Join(dir, "Chart.yaml")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return ""
}
