package docs

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/lifecycle"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

//go:embed assets/*.tmpl assets/style.css assets/docs.js
var assets embed.FS

// WriteHTML writes the site into dir: index.html, a page per CRD, the
// stylesheet, the script and the search index. Every link is relative,
// so the site opens from disk or any web server; nothing is fetched from
// elsewhere. It returns the files written.
func WriteHTML(site *Site, dir, title string) ([]string, error) {
	d := newDescriptions()
	tmpl, err := template.New("docs").Funcs(template.FuncMap{
		"markdown":    d.block,
		"summary":     d.inline,
		"conversion":  conversion,
		"deprecation": deprecation,
		"count":       report.Plural,
		"costed":      costed,
	}).ParseFS(assets, "assets/*.tmpl")
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	write := func(name string, data []byte) error {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
		written = append(written, name)
		return nil
	}
	render := func(name, tmplName string, data any) error {
		var b bytes.Buffer
		if err := tmpl.ExecuteTemplate(&b, tmplName, data); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		return write(name, b.Bytes())
	}
	count := 0
	for _, g := range site.Groups {
		for _, p := range g.Pages {
			if err := render(p.File+".html", "crd.html.tmpl", p); err != nil {
				return written, err
			}
			count++
		}
	}
	if err := render("index.html", "index.html.tmpl", map[string]any{"Site": site, "Title": title, "Count": count}); err != nil {
		return written, err
	}
	index, err := searchIndex(site)
	if err != nil {
		return written, err
	}
	if err := write("search-index.js", index); err != nil {
		return written, err
	}
	for _, name := range []string{"style.css", "docs.js"} {
		data, err := assets.ReadFile("assets/" + name)
		if err != nil {
			return written, err
		}
		if err := write(name, data); err != nil {
			return written, err
		}
	}
	return written, nil
}

// indexEntry is a CRD in the search index: its kind, group, page,
// versions, and its fields, each path once, at the newest version that
// has it. A field is [parent, name, version]: the index of its parent in
// fields (-1 at the top), its name, the index of its version; the paths
// are spelled out by the script, which keeps the index a tenth of the size
// of the paths written in full.
type indexEntry struct {
	Kind     string   `json:"kind"`
	Group    string   `json:"group"`
	Page     string   `json:"page"`
	Versions []string `json:"versions"`
	Fields   [][3]any `json:"fields"`
}

// searchIndex is the script that defines crdDocsIndex. It is a script
// rather than JSON because a page opened from disk may not fetch files.
func searchIndex(site *Site) ([]byte, error) {
	var entries []indexEntry
	for _, g := range site.Groups {
		for _, p := range g.Pages {
			e := indexEntry{Kind: p.CRD.Spec.Names.Kind, Group: g.Name, Page: p.File + ".html", Fields: [][3]any{}}
			at := map[string]int{}
			for vi, v := range p.Versions {
				e.Versions = append(e.Versions, v.Name)
				walkFields(v.Fields, func(f *Field) {
					if _, ok := at[f.Path]; ok {
						return
					}
					parent, ok := at[strings.TrimSuffix(strings.TrimSuffix(f.Path, f.Name), ".")]
					if !ok {
						parent = -1
					}
					at[f.Path] = len(e.Fields)
					e.Fields = append(e.Fields, [3]any{parent, f.Name, vi})
				})
			}
			entries = append(entries, e)
		}
	}
	data, err := json.Marshal(entries)
	if err != nil {
		return nil, err
	}
	return append(append([]byte("// The search index of kubectl crd docs.\nconst crdDocsIndex = "), data...), ";\n"...), nil
}

// walkFields calls fn on every field of the tree, depth first.
func walkFields(fields []*Field, fn func(*Field)) {
	for _, f := range fields {
		fn(f)
		walkFields(f.Fields, fn)
	}
}

// conversion is the CRD's conversion and what it does.
func conversion(crd *apiextensionsv1.CustomResourceDefinition) string {
	c := lifecycle.ConversionOf(crd)
	return c.String() + ": " + c.Meaning()
}

func deprecation(crd *apiextensionsv1.CustomResourceDefinition, v *Version) string {
	return catalog.DeprecationWarning(crd, &v.CustomResourceDefinitionVersion)
}
