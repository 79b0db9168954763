package diff

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/report"
)

// Formats are diff's output formats.
var Formats = []string{"text", "json", "markdown", "github", "sarif"}

// Report is what an upgrade of one CRD changes and breaks.
type Report struct {
	CRD string `json:"crd"`
	// File is the new CRD's file (for positions).
	File    string         `json:"file"`
	Changes []Change       `json:"changes"`
	Objects []ObjectImpact `json:"objects"`
	Summary Summary        `json:"summary"`
	// KubernetesVersion is the version whose answers these are
	// (MAJOR.MINOR; see pkg/kubeversion).
	KubernetesVersion string `json:"kubernetesVersion"`
}

// Summary counts changes by severity and objects by version.
type Summary struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
	// Objects: by version, the stored objects checked (absent when none
	// were, offline or with --no-objects).
	Objects  map[string]VersionImpact `json:"objects,omitempty"`
	Breaking bool                     `json:"breaking"`
}

// Summarize fills in the summary.
func (r *Report) Summarize() {
	s := Summary{Objects: r.Summary.Objects}
	for _, c := range r.Changes {
		switch c.Severity {
		case Error:
			s.Errors++
		case Warning:
			s.Warnings++
		case Info:
			s.Infos++
		}
	}
	s.Breaking = s.Errors > 0
	r.Summary = s
}

// Write writes reports in a format: text (a review in words), json,
// markdown (for a pull request comment), github (workflow annotations) or
// sarif (2.1.0), with positions in the new CRD's file.
func Write(w io.Writer, reports []Report, format, version string) error {
	switch format {
	case "json":
		if len(reports) == 1 {
			return report.WriteJSON(w, reports[0])
		}
		return report.WriteJSON(w, reports)
	case "markdown":
		return writeMarkdown(w, reports)
	case "github":
		return writeGitHub(w, reports)
	case "sarif":
		return writeSARIF(w, reports, version)
	}
	return writeText(w, reports)
}

func writeText(w io.Writer, reports []Report) error {
	var b strings.Builder
	for i, r := range reports {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "CustomResourceDefinition %s\n", r.CRD)
		if len(r.Changes) == 0 {
			b.WriteString("  no changes\n")
		}
		for _, c := range r.Changes {
			place := ""
			if r.File != "" && c.Line > 0 {
				place = fmt.Sprintf("%s:%d:%d: ", r.File, c.Line, max(c.Column, 1))
			}
			fmt.Fprintf(&b, "  %s%-7s %s [%s]\n", place, c.Severity, c.describe(), c.Check)
		}
		writeObjectsText(&b, r)
		s := r.Summary
		b.WriteString(s.counts())
		for _, v := range sortedVersions(s.Objects) {
			o := s.Objects[v]
			fmt.Fprintf(&b, "; %s: %s, %d refused, %d losing fields", v, report.Plural(o.Checked, "object", "objects"), o.Refused, o.Pruned)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeObjectsText(b *strings.Builder, r Report) {
	if len(r.Objects) == 0 {
		return
	}
	b.WriteString("  stored objects on their next unchanged write:\n")
	for _, o := range r.Objects {
		name := o.Name
		if o.Namespace != "" {
			name = o.Namespace + "/" + o.Name
		}
		for _, e := range o.Refused {
			fmt.Fprintf(b, "    %s %s: refused: %s: %s\n", o.Version, name, e.Field, e.Message)
		}
		if len(o.Pruned) > 0 {
			fmt.Fprintf(b, "    %s %s: loses %s\n", o.Version, name, strings.Join(o.Pruned, ", "))
		}
	}
}

func writeMarkdown(w io.Writer, reports []Report) error {
	var b strings.Builder
	for _, r := range reports {
		s := r.Summary
		verdict := "no breaking change"
		if s.Breaking {
			verdict = "**breaking**"
		}
		fmt.Fprintf(&b, "### `%s`: %s\n\n", r.CRD, verdict)
		fmt.Fprintf(&b, "%s.\n\n", s.counts())
		if len(r.Changes) > 0 {
			b.WriteString("| severity | version | field | check | change |\n| --- | --- | --- | --- | --- |\n")
			for _, c := range r.Changes {
				fmt.Fprintf(&b, "| %s | %s | `%s` | %s | %s |\n", c.Severity, c.Version, c.Field, c.Check, mdCell(c.Message))
			}
			b.WriteString("\n")
		}
		if len(s.Objects) > 0 {
			b.WriteString("| version | objects | refused | losing fields |\n| --- | --- | --- | --- |\n")
			for _, v := range sortedVersions(s.Objects) {
				o := s.Objects[v]
				fmt.Fprintf(&b, "| %s | %d | %d | %d |\n", v, o.Checked, o.Refused, o.Pruned)
			}
			b.WriteString("\n")
		}
		for _, o := range r.Objects {
			name := o.Name
			if o.Namespace != "" {
				name = o.Namespace + "/" + o.Name
			}
			var what []string
			for _, e := range o.Refused {
				what = append(what, fmt.Sprintf("refused: `%s`: %s", e.Field, mdCell(e.Message)))
			}
			if len(o.Pruned) > 0 {
				what = append(what, "loses `"+strings.Join(o.Pruned, "`, `")+"`")
			}
			fmt.Fprintf(&b, "- `%s` (%s): %s\n", name, o.Version, strings.Join(what, "; "))
		}
		if len(r.Objects) > 0 {
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

func writeGitHub(w io.Writer, reports []Report) error {
	var b strings.Builder
	level := map[Severity]string{Error: "error", Warning: "warning", Info: "notice"}
	for _, r := range reports {
		for _, c := range r.Changes {
			b.WriteString(report.Annotation(level[c.Severity], r.File, c.Line, max(c.Column, 1), r.CRD+": "+c.Check, c.describe()))
		}
		for _, o := range r.Objects {
			for _, e := range o.Refused {
				b.WriteString(report.Annotation("error", r.File, 1, 0, r.CRD+": object-refused",
					fmt.Sprintf("%s %s/%s: %s: %s", o.Version, o.Namespace, o.Name, e.Field, e.Message)))
			}
			if len(o.Pruned) > 0 {
				b.WriteString(report.Annotation("error", r.File, 1, 0, r.CRD+": field-pruned",
					fmt.Sprintf("%s %s/%s loses %s", o.Version, o.Namespace, o.Name, strings.Join(o.Pruned, ", "))))
			}
		}
		fmt.Fprintf(&b, "%s: %s\n", r.CRD, r.Summary.counts())
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeSARIF writes a SARIF 2.1.0 log: a result per change, at its place
// in the new CRD's file.
func writeSARIF(w io.Writer, reports []Report, version string) error {
	log := report.SARIF{ToolVersion: version}
	level := map[Severity]string{Error: report.LevelError, Warning: report.LevelWarning, Info: report.LevelNote}
	docs := map[string]string{}
	for _, c := range Checks {
		docs[c.Name] = c.Doc
	}
	for _, r := range reports {
		log.KubernetesVersion = r.KubernetesVersion
		for _, c := range r.Changes {
			log.Add(report.Finding{RuleID: c.Check, Rule: docs[c.Check], Level: level[c.Severity], Message: r.CRD + ": " + c.describe(),
				File: r.File, Line: c.Line, Column: c.Column})
		}
	}
	return log.Write(w)
}

// counts are the changes by severity, in words.
func (s Summary) counts() string {
	return report.Plural(s.Errors, "error", "errors") + ", " + report.Plural(s.Warnings, "warning", "warnings") + ", " + report.Plural(s.Infos, "info", "infos")
}

func sortedVersions(m map[string]VersionImpact) []string {
	out := make([]string, 0, len(m))
	for v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
