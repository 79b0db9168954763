package lint

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/report"
)

// Formats are the output formats of Write.
var Formats = []string{"text", "json", "sarif", "github", "markdown"}

// Output says how findings are written.
type Output struct {
	Format string
	// Version is kubectl-crd's (SARIF's tool version); KubernetesVersion
	// the version answered as (MAJOR.MINOR).
	Version, KubernetesVersion string
	// All writes every finding in markdown (by default a summary that fits
	// a pull request's comment).
	All bool
}

// DocsURL is where each check's rationale and fix are, by its anchor.
const DocsURL = report.InformationURI + "/blob/main/docs/lint.md"

// maxComment is what a GitHub comment holds (65,536 characters), less
// room for what a workflow adds around the summary.
const maxComment = 60000

// Write writes findings as o says.
func Write(w io.Writer, findings []Finding, o Output) error {
	if findings == nil {
		findings = []Finding{}
	}
	switch o.Format {
	case "json":
		return report.WriteJSON(w, struct {
			Findings          []Finding `json:"findings"`
			KubernetesVersion string    `json:"kubernetesVersion,omitempty"`
		}{findings, o.KubernetesVersion})
	case "sarif":
		log := report.SARIF{ToolVersion: o.Version, KubernetesVersion: o.KubernetesVersion}
		for _, f := range findings {
			log.Add(report.Finding{RuleID: f.Check, Rule: checkDoc(f.Check), Level: sarifLevel(f.Severity),
				Message: f.describe() + ". Fix: " + f.fix(), File: f.File, Line: f.Line, Column: f.Column,
				Help: "See " + checkURL(f.Check) + " for why, and how to fix it.", HelpURI: checkURL(f.Check)})
		}
		return log.Write(w)
	}
	var b strings.Builder
	switch o.Format {
	case "github":
		for _, f := range findings {
			level := map[report.Severity]string{report.Error: "error", report.Warning: "warning"}[f.Severity]
			if level == "" {
				level = "notice"
			}
			b.WriteString(report.Annotation(level, f.File, f.Line, f.Column, "kubectl crd lint: "+f.Check, f.describe()+"\nfix: "+f.fix()))
		}
	case "markdown":
		writeMarkdown(&b, findings, o.All)
	default:
		for _, f := range findings {
			fmt.Fprintf(&b, "%s: %s %s: %s\n    fix: %s\n", f.place(), f.Severity, f.Check, f.describe(), f.fix())
		}
		fmt.Fprintf(&b, "%s\n", summary(findings))
		writeCounts(&b, findings)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// count is a number of findings of one check or CRD.
type count struct {
	name string
	n    int
}

// counts are the findings by key, most first (then by name).
func counts(findings []Finding, key func(Finding) string) []count {
	m := map[string]int{}
	for _, f := range findings {
		m[key(f)]++
	}
	out := make([]count, 0, len(m))
	for name, n := range m {
		out = append(out, count{name, n})
	}
	slices.SortFunc(out, func(a, b count) int { return cmp.Or(b.n-a.n, strings.Compare(a.name, b.name)) })
	return out
}

func byCheck(f Finding) string { return f.Check }
func byCRD(f Finding) string   { return f.CRD }

// writeCounts ends the text output of more than ten findings (fewer
// are counted at a glance): the findings per check, and per CRD when
// there are several.
func writeCounts(b *strings.Builder, findings []Finding) {
	if len(findings) <= 10 {
		return
	}
	table := func(title string, cs []count) {
		width := 0
		for _, c := range cs {
			width = max(width, len(c.name))
		}
		fmt.Fprintf(b, "%s:\n", title)
		for _, c := range cs {
			fmt.Fprintf(b, "  %-*s %6d\n", width, c.name, c.n)
		}
	}
	table("by check", counts(findings, byCheck))
	if crds := counts(findings, byCRD); len(crds) > 1 {
		table("by CRD", crds)
	}
}

// writeMarkdown writes every finding (all), or a summary that fits a
// pull request's comment: the counts per check and CRD, and the first
// findings of each check, as many as fit.
func writeMarkdown(b *strings.Builder, findings []Finding, all bool) {
	fmt.Fprintf(b, "**kubectl crd lint**: %s\n\n", summary(findings))
	if len(findings) == 0 {
		return
	}
	row := func(f Finding) string {
		return fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", f.place(), f.Severity, f.Check, f.CRD, f.Version,
			cell(f.Field), cell(f.Message), cell(f.fix()))
	}
	const header = "| Place | Severity | Check | CRD | Version | Field | Finding | Fix |\n|---|---|---|---|---|---|---|---|\n"
	if all {
		b.WriteString(header)
		for _, f := range findings {
			b.WriteString(row(f))
		}
		return
	}
	var head strings.Builder
	checks := counts(findings, byCheck)
	head.WriteString("| Check | Findings |\n|---|---|\n")
	for _, c := range checks {
		fmt.Fprintf(&head, "| [%s](%s) | %d |\n", c.name, checkURL(c.name), c.n)
	}
	if crds := counts(findings, byCRD); len(crds) > 1 {
		head.WriteString("\n| CRD | Findings |\n|---|---|\n")
		for _, c := range crds {
			fmt.Fprintf(&head, "| %s | %d |\n", cell(c.name), c.n)
		}
	}
	// The first findings of each check: three each, or as many as fit.
	for each := 3; each >= 0; each-- {
		var body strings.Builder
		shown := 0
		if each > 0 {
			body.WriteString("\n" + header)
			for _, c := range checks {
				n := 0
				for _, f := range findings {
					if f.Check == c.name && n < each {
						body.WriteString(row(f))
						n++
					}
				}
				shown += n
			}
		}
		if more := len(findings) - shown; more > 0 {
			word := "findings"
			if more == 1 {
				word = "finding"
			}
			fmt.Fprintf(&body, "\n%d more %s: every finding with `kubectl crd lint -o markdown --all`, or `-o json`.\n", more, word)
		}
		if head.Len()+body.Len() <= maxComment-b.Len() || each == 0 {
			b.WriteString(head.String())
			b.WriteString(body.String())
			return
		}
	}
}

// describe is the finding as one line: the CRD, version and field, then
// the message.
func (f Finding) describe() string {
	where := f.CRD + " " + f.Version
	if f.Field != "" {
		where += " " + f.Field
	}
	return where + ": " + f.Message
}

// fix is the fix, with the cost's bound where there is one.
func (f Finding) fix() string {
	if f.CostBound != nil {
		return fmt.Sprintf("%s (kubectl crd cost: at most %d brings the rule under the server's limit)", f.Fix, *f.CostBound)
	}
	return f.Fix
}

func (f Finding) place() string {
	switch {
	case f.File == "":
		return f.CRD
	case f.Column > 0:
		return fmt.Sprintf("%s:%d:%d", f.File, f.Line, f.Column)
	}
	return fmt.Sprintf("%s:%d", f.File, f.Line)
}

func summary(findings []Finding) string {
	n := map[report.Severity]int{}
	for _, f := range findings {
		n[f.Severity]++
	}
	if len(findings) == 0 {
		return "no findings"
	}
	return fmt.Sprintf("%s (%d error, %d warning, %d info)", report.Plural(len(findings), "finding", "findings"), n[report.Error], n[report.Warning], n[report.Info])
}

func sarifLevel(s report.Severity) string {
	switch s {
	case report.Error:
		return report.LevelError
	case report.Warning:
		return report.LevelWarning
	}
	return report.LevelNote
}

func checkDoc(name string) string {
	for _, c := range Checks {
		if c.Name == name {
			return c.Doc
		}
	}
	return name
}

// checkURL is where docs/lint.md says why a check matters and how to fix
// what it finds.
func checkURL(name string) string { return DocsURL + "#" + name }

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
