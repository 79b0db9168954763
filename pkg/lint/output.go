package lint

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/report"
)

// Formats are the output formats of Write.
var Formats = []string{"text", "json", "sarif", "github", "markdown"}

// Write writes findings in format; version is kubectl-crd's (SARIF's
// tool version).
func Write(w io.Writer, format string, findings []Finding, version string) error {
	if findings == nil {
		findings = []Finding{}
	}
	switch format {
	case "json":
		return report.WriteJSON(w, struct {
			Findings []Finding `json:"findings"`
		}{findings})
	case "sarif":
		log := report.SARIF{ToolVersion: version}
		for _, f := range findings {
			log.Add(report.Finding{RuleID: f.Check, Rule: checkDoc(f.Check), Level: sarifLevel(f.Severity),
				Message: f.describe(), File: f.File, Line: f.Line, Column: f.Column})
		}
		return log.Write(w)
	}
	var b strings.Builder
	switch format {
	case "github":
		for _, f := range findings {
			level := map[report.Severity]string{report.Error: "error", report.Warning: "warning"}[f.Severity]
			if level == "" {
				level = "notice"
			}
			b.WriteString(report.Annotation(level, f.File, f.Line, f.Column, "kubectl crd lint: "+f.Check, f.describe()))
		}
	case "markdown":
		b.WriteString("| Place | Severity | Check | CRD | Version | Field | Finding | Fix |\n|---|---|---|---|---|---|---|---|\n")
		for _, f := range findings {
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", f.place(), f.Severity, f.Check, f.CRD, f.Version,
				cell(f.Field), cell(f.Message), cell(f.fix()))
		}
	default:
		for _, f := range findings {
			fmt.Fprintf(&b, "%s: %s %s: %s\n    fix: %s\n", f.place(), f.Severity, f.Check, f.describe(), f.fix())
		}
		fmt.Fprintf(&b, "%s\n", summary(findings))
	}
	_, err := io.WriteString(w, b.String())
	return err
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

func cell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
