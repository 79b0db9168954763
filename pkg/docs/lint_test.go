package docs

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestLintOnThePages: with a lint profile, each field shows lint's
// findings on it (and on its items), the version those on itself, and
// the Markdown a table of them all; without one, nothing of lint.
func TestLintOnThePages(t *testing.T) {
	crds := crdsUnder(t, filepath.Join("..", "lint", "testdata"))
	if len(crds) != 1 {
		t.Fatalf("%d CRDs in pkg/lint/testdata", len(crds))
	}
	site, err := Build(crds, Options{Lint: "kube"})
	if err != nil {
		t.Fatal(err)
	}
	checksAt := map[string][]string{} // by version/field path
	var v1 *Version
	for _, v := range site.Groups[0].Pages[0].Versions {
		if v.Name == "v1" {
			v1 = v
		}
		walkFields(v.Fields, func(f *Field) {
			for _, l := range f.Lint {
				checksAt[v.Name+"/"+f.Path] = append(checksAt[v.Name+"/"+f.Path], l.Check)
			}
		})
	}
	for at, want := range map[string]string{"v1/spec.ratio": "nofloats", "v1/spec.tags": "ssatags", "v1/spec.slots.name": "listmap-key", "v1/spec.retries": "default-value"} {
		if got := checksAt[at]; len(got) != 1 || got[0] != want {
			t.Errorf("%s: %v, want [%s]", at, got, want)
		}
	}
	if got := checksAt["v1/spec.size"]; len(got) != 0 {
		t.Errorf("the clean field spec.size: %v", got)
	}
	var own []string
	if v1 != nil {
		for _, l := range v1.Lint {
			own = append(own, l.Check)
		}
	}
	slices.Sort(own)
	if !slices.Equal(own, []string{"deprecation-warning", "printercolumn-path", "statussubresource"}) {
		t.Errorf("v1's own findings: %v, want deprecation-warning, printercolumn-path and statussubresource (of the version, as kube-api-linter says it)", own)
	}
	dir := t.TempDir()
	if _, err := WriteHTML(site, dir, "Test"); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "gizmos.lint.example.com.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), `<span class="badge lint-error">error nofloats</span>`) {
		t.Error("the page does not show nofloats")
	}
	// The index says lint is on, and counts each CRD's findings.
	var all []Note
	for _, v := range site.Groups[0].Pages[0].Versions {
		all = append(all, v.allLint()...)
	}
	counts := site.Groups[0].Pages[0].LintCounts()
	if len(all) == 0 || counts == "none" || !strings.Contains(counts, "error") {
		t.Fatalf("counts %q of %d findings", counts, len(all))
	}
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	total := fmt.Sprintf("%d findings on 1 of 1 CRD", len(all))
	if !strings.Contains(string(index), "(profile <code>kube</code>): "+total) || !strings.Contains(string(index), `<td class="lint-count">`+counts+`</td>`) {
		t.Errorf("the index does not say lint is on (%s) with %q per CRD", total, counts)
	}
	if _, err := WriteMarkdown(site, filepath.Join(dir, "md"), "Test"); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "md", "gizmos.lint.example.com.md"))
	if err != nil || !strings.Contains(string(md), "### Conventions (kubectl crd lint)") || !strings.Contains(string(md), "| `spec.ratio` | error | nofloats |") {
		t.Errorf("the Markdown's conventions: %v", err)
	}
	mdIndex, err := os.ReadFile(filepath.Join(dir, "md", "README.md"))
	if err != nil || !strings.Contains(string(mdIndex), "(profile `kube`): "+total) || !strings.Contains(string(mdIndex), "| Namespaced | "+counts+" |") {
		t.Errorf("the Markdown index does not say lint is on: %v\n%s", err, mdIndex)
	}

	plain, err := Build(crds, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range plain.Groups[0].Pages[0].Versions {
		if len(v.allLint()) > 0 {
			t.Errorf("no profile, yet %s shows lint findings", v.Name)
		}
	}
	plainDir := t.TempDir()
	if _, err := WriteHTML(plain, plainDir, "Test"); err != nil {
		t.Fatal(err)
	}
	if index, err := os.ReadFile(filepath.Join(plainDir, "index.html")); err != nil || strings.Contains(string(index), "lint-summary") || strings.Contains(string(index), "lint-count") {
		t.Errorf("no profile, yet the index speaks of lint: %v", err)
	}
}
