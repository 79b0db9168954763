package validate

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/report"
)

// WriteJUnit writes the report as JUnit XML: a test suite per file, a
// test case per object.
func (r Report) WriteJUnit(w io.Writer) error {
	j := report.JUnit{Name: "kubectl crd validate"}
	for _, msg := range r.NotChecked {
		j.Properties = append(j.Properties, report.Property{Name: "notChecked", Value: msg})
	}
	for _, res := range r.Results {
		s := j.Suite(res.File)
		c := report.Case{Name: fmt.Sprintf("%s/%s (line %d)%s", res.Kind, res.Name, res.Line, renderedBy(res)), Classname: res.File}
		switch res.Status {
		case Invalid:
			c.Failure = &report.Message{Message: report.Plural(len(res.Errors), "problem", "problems"), Type: res.Errors[0].Type, Text: problemLines(res.File, res.Errors)}
		case Errored:
			c.Error = &report.Message{Message: res.Reason, Text: problemLines(res.File, res.Errors)}
		case Skipped:
			c.Skipped = &report.Message{Message: res.Reason}
		}
		if len(res.Warnings) > 0 {
			c.SystemErr = problemLines(res.File, res.Warnings)
		}
		s.Cases = append(s.Cases, c)
	}
	return j.Write(w)
}

func problemLines(file string, ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s\n", file, p.Line, p.Column, p.Field, p.Message)
	}
	return b.String()
}

// WriteSARIF writes the report as a SARIF 2.1.0 log: one result per
// problem, a rule per cause type.
func (r Report) WriteSARIF(w io.Writer, version string) error {
	log := report.SARIF{ToolVersion: version, KubernetesVersion: r.KubernetesVersion, Notifications: r.NotChecked}
	add := func(res ObjectResult, level string, p Problem) {
		id, rule := p.Type, ""
		switch {
		case p.Policy != "":
			// A rule per admission policy: CI can list and mute them.
			id, rule = "AdmissionPolicy/"+p.Policy, "The admission policy "+p.Policy+" denies or warns"
		case id == "":
			id = "Error"
		}
		if rule == "" {
			rule = ruleText(id)
		}
		log.Add(report.Finding{RuleID: id, Rule: rule, Level: level, Message: fieldMessage(p) + renderedBy(res), File: res.File, Line: p.Line, Column: p.Column})
	}
	for _, res := range r.Results {
		if res.Status == Errored && len(res.Errors) == 0 {
			add(res, report.LevelError, Problem{Message: res.Reason, Line: res.Line})
		}
		for _, p := range res.Errors {
			add(res, report.LevelError, p)
		}
		for _, p := range res.Warnings {
			add(res, report.LevelWarning, p)
		}
	}
	return log.Write(w)
}

func ruleText(id string) string {
	switch id {
	case "FieldValueUnknown":
		return "A field the schema does not declare (the server would drop it)"
	case "Deprecated":
		return "A deprecated API version"
	case "InputInvalid":
		return "Input that cannot be read as an object"
	case "Error":
		return "The object could not be checked"
	}
	return "The API server rejects the object: " + id
}

// writeGitHubResult writes a GitHub Actions workflow command per problem
// of a result (::error / ::warning with file, line and column).
func writeGitHubResult(w io.Writer, res ObjectResult) error {
	var b strings.Builder
	by := renderedBy(res)
	if res.Status == Errored && len(res.Errors) == 0 {
		b.WriteString(report.Annotation("error", res.File, res.Line, 0, "Error", res.Reason+by))
	}
	for _, p := range res.Errors {
		b.WriteString(report.Annotation("error", res.File, p.Line, p.Column, p.Type, fieldMessage(p)+by))
	}
	for _, p := range res.Warnings {
		b.WriteString(report.Annotation("warning", res.File, p.Line, p.Column, p.Type, fieldMessage(p)+by))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fieldMessage(p Problem) string {
	if p.Field == "" {
		return p.Message
	}
	return p.Field + ": " + p.Message
}

// renderedBy says, after a message, what rendered the object when a
// source did: the same file can be rendered by several Kustomizations.
func renderedBy(res ObjectResult) string {
	if res.Source == "" {
		return ""
	}
	return " (rendered by " + res.Source + ")"
}
