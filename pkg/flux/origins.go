package flux

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	yaml "go.yaml.in/yaml/v3"
	"sigs.k8s.io/kustomize/api/resource"
	sigsyaml "sigs.k8s.io/yaml"
)

// origins finds a rendered object in the file kustomize read it from, so
// that its problems are placed where the user writes it.
type origins struct {
	show  func(string) string
	files map[string][]manifest.Document
}

func newOrigins(show func(string) string) *origins {
	return &origins{show: show, files: map[string][]manifest.Document{}}
}

// readOrigin reads kustomize's origin annotation (nil: none).
func readOrigin(s string) *resource.Origin {
	if s == "" {
		return nil
	}
	var o resource.Origin
	if sigsyaml.Unmarshal([]byte(s), &o) != nil {
		return nil
	}
	return &o
}

// find is the file an object of kind and name came from, built in dir,
// with the line, column and node of the object in it: the document of
// that kind whose name is the object's, or is within it (namePrefix and
// nameSuffix add to it), or the only one of that kind. Line 0: the file
// is known, the place is not (a generator's object, a remote base).
func (o *origins) find(dir string, origin *resource.Origin, kind, name string) (string, int, int, *yaml.Node) {
	switch {
	case origin == nil:
		return o.show(dir), 0, 0, nil
	case origin.Repo != "":
		return origin.Repo + "//" + origin.Path, 0, 0, nil
	case origin.ConfiguredIn != "":
		return o.show(filepath.Join(dir, origin.ConfiguredIn)), 0, 0, nil
	}
	file := filepath.Join(dir, origin.Path)
	docs, ok := o.files[file]
	if !ok {
		if data, err := os.ReadFile(file); err == nil {
			docs = manifest.ReadLenient(o.show(file), data)
		}
		o.files[file] = docs
	}
	var best *manifest.Document
	sameKind := 0
	for i := range docs {
		d := &docs[i]
		if d.Err != nil || d.TypeMeta().Kind != kind {
			continue
		}
		sameKind++
		n := docName(d)
		switch {
		case n == name:
			return o.place(file, d)
		case best == nil && n != "" && strings.Contains(name, n):
			best = d
		}
	}
	if best == nil && sameKind == 1 {
		for i := range docs {
			if docs[i].Err == nil && docs[i].TypeMeta().Kind == kind {
				best = &docs[i]
			}
		}
	}
	if best == nil {
		return o.show(file), 0, 0, nil
	}
	return o.place(file, best)
}

func (o *origins) place(file string, d *manifest.Document) (string, int, int, *yaml.Node) {
	return o.show(file), d.Line, d.Column, d.YAMLNode()
}

// docName is a document's metadata.name as written ("" when none).
func docName(d *manifest.Document) string {
	var m struct {
		Metadata struct {
			Name any `json:"name"`
		} `json:"metadata"`
	}
	_ = sigsyaml.Unmarshal(d.JSON, &m)
	s, _ := m.Metadata.Name.(string)
	return s
}
