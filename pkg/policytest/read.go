package policytest

import (
	"net/url"
	"path"
	"path/filepath"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// FileName is the name of the files "kyverno test" runs in a directory.
const FileName = "kyverno-test.yaml"

// IsTest tells whether a document is a Kyverno CLI Test.
func IsTest(d *manifest.Document) bool {
	tm := d.TypeMeta()
	return tm.Kind == "Test" && schema.FromAPIVersionAndKind(tm.APIVersion, tm.Kind).Group == Group
}

// Tests are the Test documents of docs that "kyverno test PATH..." would
// run: those of a file named as a path, and, below a directory, those of
// the files named fileName (FileName when "").
func Tests(docs []manifest.Document, paths []string, fileName string) []*Test {
	if fileName == "" {
		fileName = FileName
	}
	named := map[string]bool{}
	for _, p := range paths {
		named[filepath.Clean(p)] = true
	}
	var out []*Test
	for i := range docs {
		d := &docs[i]
		if d.Err != nil || !IsTest(d) {
			continue
		}
		if !named[filepath.Clean(d.File)] && path.Base(filepath.ToSlash(d.File)) != fileName {
			continue
		}
		out = append(out, decodeTest(d))
	}
	return out
}

// resolve is a path a Test names, relative to the Test's own file: a
// URL's against the URL, a git revision's (git:REV:PATH) within the
// revision, a file's against its directory.
func resolve(testFile, p string) string {
	if p == "" || p == "-" || filepath.IsAbs(p) || strings.Contains(p, "://") || strings.HasPrefix(p, "git:") {
		return p
	}
	if strings.Contains(testFile, "://") {
		if base, err := url.Parse(testFile); err == nil {
			if ref, err := url.Parse(p); err == nil {
				return base.ResolveReference(ref).String()
			}
		}
		return p
	}
	if rest, ok := strings.CutPrefix(testFile, "git:"); ok {
		if rev, file, ok := strings.Cut(rest, ":"); ok {
			return "git:" + rev + ":" + path.Join(path.Dir(file), p)
		}
	}
	return filepath.Join(filepath.Dir(testFile), p)
}
