package diff

import (
	"encoding/json"
	"fmt"
	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"io"
	"sort"
	"strings"
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
	r.KubernetesVersion = kubeversion.Current().String()
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
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if len(reports) == 1 {
			return enc.Encode(reports[0])
		}
		return enc.Encode(reports)
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
			fmt.Fprintf(&b, "  %-7s %s [%s]\n", c.Severity, c.describe(), c.Check)
		}
		writeObjectsText(&b, r)
		s := r.Summary
		fmt.Fprintf(&b, "%d errors, %d warnings, %d infos", s.Errors, s.Warnings, s.Infos)
		for _, v := range sortedVersions(s.Objects) {
			o := s.Objects[v]
			fmt.Fprintf(&b, "; %s: %d objects, %d refused, %d losing fields", v, o.Checked, o.Refused, o.Pruned)
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
		fmt.Fprintf(&b, "%d errors, %d warnings, %d infos.\n\n", s.Errors, s.Warnings, s.Infos)
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
			fmt.Fprintf(&b, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", level[c.Severity], ghProperty(r.File), max(c.Line, 1), max(c.Column, 1),
				ghProperty(r.CRD+": "+c.Check), ghData(c.describe()))
		}
		for _, o := range r.Objects {
			for _, e := range o.Refused {
				fmt.Fprintf(&b, "::error file=%s,line=1,title=%s::%s\n", ghProperty(r.File), ghProperty(r.CRD+": object-refused"),
					ghData(fmt.Sprintf("%s %s/%s: %s: %s", o.Version, o.Namespace, o.Name, e.Field, e.Message)))
			}
			if len(o.Pruned) > 0 {
				fmt.Fprintf(&b, "::error file=%s,line=1,title=%s::%s\n", ghProperty(r.File), ghProperty(r.CRD+": field-pruned"),
					ghData(fmt.Sprintf("%s %s/%s loses %s", o.Version, o.Namespace, o.Name, strings.Join(o.Pruned, ", "))))
			}
		}
		s := r.Summary
		fmt.Fprintf(&b, "%s: %d errors, %d warnings, %d infos\n", r.CRD, s.Errors, s.Warnings, s.Infos)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// SARIF 2.1.0: a result per change, at its place in the new CRD's file.
func writeSARIF(w io.Writer, reports []Report, version string) error {
	type region struct {
		StartLine   int `json:"startLine"`
		StartColumn int `json:"startColumn,omitempty"`
	}
	type location struct {
		PhysicalLocation struct {
			ArtifactLocation struct {
				URI string `json:"uri"`
			} `json:"artifactLocation"`
			Region region `json:"region"`
		} `json:"physicalLocation"`
	}
	type message struct {
		Text string `json:"text"`
	}
	type result struct {
		RuleID    string     `json:"ruleId"`
		Level     string     `json:"level"`
		Message   message    `json:"message"`
		Locations []location `json:"locations"`
	}
	type rule struct {
		ID               string  `json:"id"`
		ShortDescription message `json:"shortDescription"`
	}
	level := map[Severity]string{Error: "error", Warning: "warning", Info: "note"}
	results := []result{}
	used := map[string]bool{}
	for _, r := range reports {
		for _, c := range r.Changes {
			var loc location
			loc.PhysicalLocation.ArtifactLocation.URI = r.File
			loc.PhysicalLocation.Region = region{StartLine: max(c.Line, 1), StartColumn: c.Column}
			results = append(results, result{RuleID: c.Check, Level: level[c.Severity], Message: message{r.CRD + ": " + c.describe()}, Locations: []location{loc}})
			used[c.Check] = true
		}
	}
	rules := []rule{}
	for _, c := range Checks {
		if used[c.Name] {
			rules = append(rules, rule{ID: c.Name, ShortDescription: message{c.Doc}})
		}
	}
	log := map[string]any{
		"version": "2.1.0",
		"$schema": "https://json.schemastore.org/sarif-2.1.0.json",
		"runs": []any{map[string]any{
			"tool":    map[string]any{"driver": map[string]any{"name": "kubectl crd diff", "version": version, "rules": rules}},
			"results": results,
		}},
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

func sortedVersions(m map[string]VersionImpact) []string {
	out := make([]string, 0, len(m))
	for v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}
