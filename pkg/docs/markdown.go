package docs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"github.com/kubectl-crd/kubectl-crd/pkg/lifecycle"
)

// WriteMarkdown writes the site into dir as Markdown that GitHub renders:
// README.md (the index) and a file per CRD with every version's columns,
// subresources, sample, fields (as explain -o markdown writes them) and
// changes. It returns the files written.
func WriteMarkdown(site *Site, dir, title string) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var written []string
	write := func(name string, b *bytes.Buffer) error {
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			return err
		}
		written = append(written, name)
		return nil
	}
	var index bytes.Buffer
	fmt.Fprintf(&index, "# %s\n\nAs Kubernetes %s serves them: the samples are objects it accepts, the constraints those it enforces.\n", title, site.KubernetesVersion)
	if site.Lint != "" {
		fmt.Fprintf(&index, "\nThe pages show the API conventions `kubectl crd lint` checks (profile `%s`): %s.\n", site.Lint, site.LintTotal())
	}
	for _, g := range site.Groups {
		if site.Lint != "" {
			fmt.Fprintf(&index, "\n## %s\n\n| Kind | Versions | Scope | Lint | Description |\n| --- | --- | --- | --- | --- |\n", g.Name)
		} else {
			fmt.Fprintf(&index, "\n## %s\n\n| Kind | Versions | Scope | Description |\n| --- | --- | --- | --- |\n", g.Name)
		}
		for _, p := range g.Pages {
			lint := ""
			if site.Lint != "" {
				lint = " " + p.LintCounts() + " |"
			}
			fmt.Fprintf(&index, "| [%s](%s.md) | %s | %s |%s %s |\n", p.CRD.Spec.Names.Kind, p.File, cell(versionList(p)), p.CRD.Spec.Scope, lint, cell(p.Summary))
			var b bytes.Buffer
			writePage(&b, p)
			if err := write(p.File+".md", &b); err != nil {
				return written, err
			}
		}
	}
	return written, write("README.md", &index)
}

func writePage(b *bytes.Buffer, p *Page) {
	n := p.CRD.Spec.Names
	fmt.Fprintf(b, "# %s\n\n", n.Kind)
	fmt.Fprintf(b, "- Group: `%s`\n- Resource: `%s` (singular `%s`)\n- Scope: %s\n", p.CRD.Spec.Group, n.Plural, n.Singular, p.CRD.Spec.Scope)
	if len(n.ShortNames) > 0 {
		fmt.Fprintf(b, "- Short names: `%s`\n", strings.Join(n.ShortNames, "`, `"))
	}
	if len(n.Categories) > 0 {
		fmt.Fprintf(b, "- Categories: %s\n", strings.Join(n.Categories, ", "))
	}
	fmt.Fprintf(b, "- Conversion: %s\n- Versions: %s\n", conversion(p.CRD), versionList(p))
	for _, v := range p.Versions {
		fmt.Fprintf(b, "\n## %s/%s%s\n", p.CRD.Spec.Group, v.Name, versionNotes(v))
		if v.Deprecated {
			fmt.Fprintf(b, "\n> %s\n", deprecation(p.CRD, v))
		}
		if v.Description != "" {
			fmt.Fprintf(b, "\n%s\n", v.Description)
		}
		if len(v.Constraints) > 0 {
			fmt.Fprintf(b, "\n%s", explain.MarkdownConstraints(v.Constraints))
		}
		fmt.Fprintf(b, "\n### Printer columns\n\n| Name | Type | JSONPath | Priority | Description |\n| --- | --- | --- | --- | --- |\n")
		for _, c := range v.Columns {
			typ := c.Type
			if c.Format != "" {
				typ += " (" + c.Format + ")"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %d | %s |\n", cell(c.Name), typ, cell(explain.Code(c.JSONPath)), c.Priority, cell(c.Description))
		}
		fmt.Fprintf(b, "\n### Subresources\n\n")
		switch s := v.Subresources; {
		case s == nil || (s.Status == nil && s.Scale == nil):
			fmt.Fprintf(b, "None.\n")
		default:
			if s.Status != nil {
				fmt.Fprintf(b, "- `status`\n")
			}
			if s.Scale != nil {
				fmt.Fprintf(b, "- `scale`: replicas at `%s`, status replicas at `%s`", s.Scale.SpecReplicasPath, s.Scale.StatusReplicasPath)
				if s.Scale.LabelSelectorPath != nil {
					fmt.Fprintf(b, ", label selector at `%s`", *s.Scale.LabelSelectorPath)
				}
				fmt.Fprintf(b, "\n")
			}
		}
		if v.Sample != "" {
			fmt.Fprintf(b, "\n### Sample\n\nAn object the API server accepts as a create (`kubectl crd sample`), with the fields it requires:\n\n```yaml\n%s```\n", v.Sample)
		}
		if v.FullSample != "" {
			fmt.Fprintf(b, "\n<details><summary>With every field</summary>\n\n```yaml\n%s```\n\n</details>\n", v.FullSample)
		}
		fmt.Fprintf(b, "\n### Fields\n")
		if root, err := explain.Schema(p.CRD, v.Name); err == nil {
			explain.WriteMarkdownFields(b, root, nil, 4)
		} else {
			fmt.Fprintf(b, "\nThis version has no schema.\n")
		}
		if found := v.allLint(); len(found) > 0 {
			fmt.Fprintf(b, "\n### Conventions (kubectl crd lint)\n\n| Field | Severity | Check | Finding | Fix |\n| --- | --- | --- | --- | --- |\n")
			for _, f := range found {
				field := "(the version)"
				if f.Field != "" {
					field = explain.Code(f.Field)
				}
				fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", cell(field), f.Severity, f.Check, cell(f.Message), cell(f.Fix))
			}
		}
		if v.Previous != "" {
			fmt.Fprintf(b, "\n### Changes from %s\n\n", v.Previous)
			if len(v.Changes) == 0 {
				fmt.Fprintf(b, "The schema is the same.\n")
			}
			for _, c := range v.Changes {
				if c.Field != "" {
					fmt.Fprintf(b, "- `%s`: %s (%s)\n", c.Field, c.Message, c.Check)
				} else {
					fmt.Fprintf(b, "- %s (%s)\n", c.Message, c.Check)
				}
			}
		}
	}
}

// versionList names the versions, with what sets each apart.
func versionList(p *Page) string {
	var out []string
	for _, v := range p.Versions {
		out = append(out, lifecycle.VersionOf(&v.CustomResourceDefinitionVersion).String())
	}
	return strings.Join(out, ", ")
}

// versionNotes are what sets a version apart, in parentheses.
func versionNotes(v *Version) string {
	return strings.TrimPrefix(lifecycle.VersionOf(&v.CustomResourceDefinitionVersion).String(), v.Name)
}

// cell makes text fit a Markdown table cell: one line, | escaped.
func cell(s string) string {
	return strings.ReplaceAll(strings.Join(strings.Fields(s), " "), "|", `\|`)
}
