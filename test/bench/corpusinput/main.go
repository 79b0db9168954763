// Command corpusinput builds the realistic input of the validate
// benchmark from the corpus of real-world CRDs and examples:
//
//	OUT/crds/          every corpus CRD file whose CRDs are not already
//	                   there (the corpus holds alternative channels of a few)
//	OUT/stream.yaml    -n documents in one stream: the corpus's example
//	                   objects that validate finds valid against those CRDs,
//	                   as upstream wrote them (comments, flow style, quoting),
//	                   taken in turn
//	OUT/files/*.yaml   the same documents as -files files
//	OUT/one.yaml       the first of them alone
//
// Which examples are valid is asked of the kubectl-crd binary given with
// -kubectl-crd (validate -o json, offline); the corpus test suite checks
// that its verdicts are the API server's.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	corpus := flag.String("corpus", "", "the corpus directory")
	out := flag.String("out", "", "where to write the input")
	plugin := flag.String("kubectl-crd", "", "the kubectl-crd binary that picks the valid examples")
	n := flag.Int("n", 2000, "documents in the stream")
	files := flag.Int("files", 200, "files the documents are split into")
	flag.Parse()
	if err := build(*corpus, *out, *plugin, *n, *files); err != nil {
		fmt.Fprintln(os.Stderr, "corpusinput:", err)
		os.Exit(1)
	}
}

func build(corpus, out, plugin string, n, files int) error {
	crdDir := filepath.Join(out, "crds")
	if err := copyCRDs(corpus, crdDir); err != nil {
		return err
	}
	candidates := filepath.Join(out, "candidates")
	chunks, err := writeCandidates(corpus, candidates)
	if err != nil {
		return err
	}
	valid, err := validChunks(plugin, candidates, crdDir)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(candidates); err != nil {
		return err
	}
	var docs []string
	for _, c := range chunks {
		if valid[c.file] {
			docs = append(docs, c.text)
		}
	}
	if len(docs) == 0 {
		return fmt.Errorf("no valid example in %s", corpus)
	}
	stream := make([]string, n)
	for i := range stream {
		stream[i] = docs[i%len(docs)]
	}
	fmt.Fprintf(os.Stderr, "corpusinput: %d valid example documents, repeated to %d\n", len(docs), n)
	if err := os.WriteFile(filepath.Join(out, "stream.yaml"), []byte(join(stream)), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "one.yaml"), []byte(docs[0]), 0o644); err != nil {
		return err
	}
	dir := filepath.Join(out, "files")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	per := (n + files - 1) / files
	for f := 0; f*per < n; f++ {
		part := stream[f*per : min((f+1)*per, n)]
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d.yaml", f)), []byte(join(part)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func join(docs []string) string {
	var b strings.Builder
	for _, d := range docs {
		b.WriteString("---\n")
		b.WriteString(d)
		if !strings.HasSuffix(d, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// copyCRDs copies each project's CRD files, skipping a file that defines
// a CRD an earlier file defined.
func copyCRDs(corpus, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	seen := map[string]bool{}
	return eachYAML(corpus, "crds", func(project, path string, data []byte) error {
		names := crdNames(data)
		for _, name := range names {
			if seen[name] {
				return nil
			}
		}
		if len(names) == 0 {
			return nil
		}
		for _, name := range names {
			seen[name] = true
		}
		return os.WriteFile(filepath.Join(dst, project+"__"+filepath.Base(path)), data, 0o644)
	})
}

// crdNames finds the metadata.name of each CRD document, as written.
func crdNames(data []byte) []string {
	var names []string
	for _, doc := range split(string(data)) {
		if !strings.Contains(doc, "kind: CustomResourceDefinition") {
			continue
		}
		inMeta := false
		for _, line := range strings.Split(doc, "\n") {
			switch {
			case line == "metadata:":
				inMeta = true
			case inMeta && strings.HasPrefix(line, "  name: "):
				names = append(names, strings.Trim(strings.TrimPrefix(line, "  name: "), `"' `))
				inMeta = false
			case len(line) > 0 && line[0] != ' ' && line[0] != '#':
				inMeta = false
			}
		}
	}
	return names
}

type chunk struct{ file, text string }

// writeCandidates writes every document of the projects' examples to a
// file of its own, and returns them in corpus order.
func writeCandidates(corpus, dir string) ([]chunk, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var chunks []chunk
	err := eachYAML(corpus, "examples", func(_, _ string, data []byte) error {
		for _, doc := range split(string(data)) {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			name := filepath.Join(dir, fmt.Sprintf("%05d.yaml", len(chunks)))
			if err := os.WriteFile(name, []byte(doc), 0o644); err != nil {
				return err
			}
			chunks = append(chunks, chunk{file: name, text: doc})
		}
		return nil
	})
	return chunks, err
}

// validChunks runs validate over the candidates and returns the files all
// of whose objects are valid (not skipped: kinds without a CRD are left
// out).
func validChunks(plugin, dir, crds string) (map[string]bool, error) {
	cmd := exec.Command(plugin, "validate", "-o", "json", "-f", dir, "--crds", crds)
	cmd.Env = append(os.Environ(), "KUBECONFIG=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil && stdout.Len() == 0 {
		return nil, fmt.Errorf("%s validate: %v\n%s", plugin, err, stderr.String())
	}
	var report struct {
		Results []struct{ File, Status string }
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		return nil, err
	}
	ok := map[string]bool{}
	bad := map[string]bool{}
	for _, r := range report.Results {
		if r.Status == "valid" {
			ok[r.File] = true
		} else {
			bad[r.File] = true
		}
	}
	for f := range bad {
		delete(ok, f)
	}
	return ok, nil
}

// eachYAML calls fn for every YAML file in corpus/PROJECT/sub, in order.
func eachYAML(corpus, sub string, fn func(project, path string, data []byte) error) error {
	projects, err := os.ReadDir(corpus)
	if err != nil {
		return err
	}
	for _, p := range projects {
		root := filepath.Join(corpus, p.Name(), sub)
		if _, err := os.Stat(root); err != nil {
			continue
		}
		var paths []string
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && (strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				paths = append(paths, path)
			}
			return err
		})
		if err != nil {
			return err
		}
		sort.Strings(paths)
		for _, path := range paths {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if err := fn(p.Name(), path, data); err != nil {
				return err
			}
		}
	}
	return nil
}

// split cuts a YAML stream at its document separators ("---" alone on a
// line, or followed by a comment), keeping each document's text as written.
func split(text string) []string {
	var docs []string
	var cur strings.Builder
	for _, line := range strings.SplitAfter(text, "\n") {
		trimmed := strings.TrimRight(line, " \r\n")
		if trimmed == "---" || strings.HasPrefix(trimmed, "--- #") {
			docs = append(docs, cur.String())
			cur.Reset()
			continue
		}
		cur.WriteString(line)
	}
	return append(docs, cur.String())
}
