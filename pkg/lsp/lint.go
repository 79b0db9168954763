package lsp

import (
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/lint"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	"go.lsp.dev/protocol"
)

// lintDiagnostics are lint's findings on the CRDs of a text, at their
// fields' keys: errors, warnings and information as lint's severities
// say under profile ("": crd; "off": none).
func lintDiagnostics(lines []string, crds []catalog.InputCRD, profile string) []protocol.Diagnostic {
	if profile == "off" {
		return nil
	}
	findings, err := lint.Lint(crds, lint.Options{Profile: profile})
	if err != nil {
		return nil // a profile lint does not know: configure says so
	}
	severity := map[report.Severity]protocol.DiagnosticSeverity{
		report.Error: protocol.DiagnosticSeverityError, report.Warning: protocol.DiagnosticSeverityWarning,
		report.Info: protocol.DiagnosticSeverityInformation,
	}
	var out []protocol.Diagnostic
	for _, f := range findings {
		msg := f.Message + " (fix: " + f.Fix + ")"
		if f.Field != "" {
			msg = f.Field + ": " + msg
		}
		out = append(out, protocol.Diagnostic{Severity: severity[f.Severity], Source: source, Code: "lint/" + f.Check, Message: msg,
			// The key of the field: the finding is about the field.
			Range: rangeOf(lines, f.Line, f.Column, "", "FieldValueRequired")})
	}
	return out
}
