package docs

import (
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	"github.com/kubectl-crd/kubectl-crd/pkg/lint"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// lintFindings are lint's findings on crd under a profile ("": none), by
// version; est is the CRD's cost estimate.
func lintFindings(crd *apiextensionsv1.CustomResourceDefinition, est cost.CRD, profile string) (map[string][]lint.Finding, error) {
	if profile == "" {
		return nil, nil
	}
	found, err := lint.Lint([]catalog.InputCRD{{CRD: &catalog.CRD{CustomResourceDefinition: crd}}},
		lint.Options{Profile: profile, Estimates: map[*apiextensionsv1.CustomResourceDefinition]cost.CRD{crd: est}})
	if err != nil {
		return nil, err
	}
	out := map[string][]lint.Finding{}
	for _, f := range found {
		out[f.Version] = append(out[f.Version], f)
	}
	return out, nil
}

// Note is a lint finding as a page shows it: At is where, when it is not
// the field (or version) it is shown under: a list's items, a field the
// page writes elsewhere.
type Note struct {
	lint.Finding
	At string
}

// placeFindings puts each finding on its field of the tree (a finding on
// a list's items or a map's values on the list or map, as the tree has
// them), and returns those of the version as a whole, or on a field the
// page writes elsewhere (a repeated subtree), which the version lists.
func placeFindings(fields []*Field, found []lint.Finding) []Note {
	byPath := map[string]*Field{}
	walkFields(fields, func(f *Field) { byPath[f.Path] = f })
	var rest []Note
	for _, f := range found {
		field := byPath[strings.ReplaceAll(f.Field, "[*]", "")]
		switch {
		case f.Field == "":
			rest = append(rest, Note{Finding: f})
		case field == nil:
			rest = append(rest, Note{Finding: f, At: f.Field})
		case f.Field == field.Path:
			field.Lint = append(field.Lint, Note{Finding: f})
		default:
			field.Lint = append(field.Lint, Note{Finding: f, At: f.Field})
		}
	}
	return rest
}

// allLint are every lint finding of the version: its fields' in tree
// order, then its own.
func (v *Version) allLint() []Note {
	var out []Note
	walkFields(v.Fields, func(f *Field) { out = append(out, f.Lint...) })
	return append(out, v.Lint...)
}

// LintCounts says how many lint findings a page shows, by severity
// ("2 errors, 1 warning", "none").
func (p *Page) LintCounts() string {
	by := map[report.Severity]int{}
	for _, v := range p.Versions {
		for _, n := range v.allLint() {
			by[n.Severity]++
		}
	}
	var parts []string
	for _, sev := range []report.Severity{report.Error, report.Warning, report.Info} {
		if n := by[sev]; n > 0 {
			parts = append(parts, report.Plural(n, string(sev), string(sev)+"s"))
		}
	}
	if parts == nil {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// LintTotal says how many findings the site's pages show, and on how
// many CRDs ("12 findings on 3 of 5 CRDs").
func (s *Site) LintTotal() string {
	findings, with, crds := 0, 0, 0
	for _, g := range s.Groups {
		for _, p := range g.Pages {
			crds++
			n := 0
			for _, v := range p.Versions {
				n += len(v.allLint())
			}
			findings += n
			if n > 0 {
				with++
			}
		}
	}
	return fmt.Sprintf("%s on %d of %s", report.Plural(findings, "finding", "findings"), with, report.Plural(crds, "CRD", "CRDs"))
}
