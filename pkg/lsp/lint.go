package lsp

import (
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	"github.com/kubectl-crd/kubectl-crd/pkg/lint"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	"go.lsp.dev/protocol"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// lintDiagnostics are lint's findings on the CRDs of a text, at their
// fields' keys: errors, warnings and information as lint's severities
// say under profile ("": crd; "off": none); ests are the CRDs' cost
// estimates, made once for the check.
func lintDiagnostics(lines []string, crds []catalog.InputCRD, ests map[*apiextensionsv1.CustomResourceDefinition]cost.CRD, profile string) []protocol.Diagnostic {
	if profile == "off" {
		return nil
	}
	findings, err := lint.Lint(crds, lint.Options{Profile: profile, Estimates: ests})
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
