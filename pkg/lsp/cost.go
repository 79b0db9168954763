package lsp

import (
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"go.lsp.dev/protocol"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// placedRule is a CEL rule of a CRD in a text, at its line and column
// (1-based), with its version's total.
type placedRule struct {
	cost.Rule
	line, column int
	total        uint64
}

// textRuleCosts are the estimated costs of the CEL rules of the CRDs in a
// text (hover reads them from the text alone).
func textRuleCosts(path, text string) []placedRule {
	crds, _, _ := catalog.Split(manifest.ReadLenient(path, []byte(text)))
	return ruleCosts(crds, estimates(crds))
}

// estimates are the CEL cost estimates of CRDs (pkg/cost: the server's
// estimator), made once per check for the cost diagnostics and lint.
func estimates(crds []catalog.InputCRD) map[*apiextensionsv1.CustomResourceDefinition]cost.CRD {
	out := make(map[*apiextensionsv1.CustomResourceDefinition]cost.CRD, len(crds))
	for _, c := range crds {
		if est, err := cost.Estimate(c.CustomResourceDefinition); err == nil {
			out[c.CustomResourceDefinition] = est
		}
	}
	return out
}

// ruleCosts are the estimated costs of the CEL rules of CRDs decoded from
// a text, each at its place.
func ruleCosts(crds []catalog.InputCRD, ests map[*apiextensionsv1.CustomResourceDefinition]cost.CRD) []placedRule {
	var out []placedRule
	for _, c := range crds {
		est, ok := ests[c.CustomResourceDefinition]
		if !ok {
			continue
		}
		seen := map[string]bool{} // a schema every version shares is estimated once
		for _, v := range est.Versions {
			for _, r := range v.Rules {
				if seen[r.Path] {
					continue
				}
				seen[r.Path] = true
				line, column := c.Doc.Position(validate.PlaceOf(r.Path))
				out = append(out, placedRule{Rule: r, line: line, column: column, total: v.TotalLimit})
			}
		}
	}
	return out
}

// costText is a rule's cost, in words, for a hover or a diagnostic.
func costText(r placedRule) string {
	return fmt.Sprintf("estimated cost %s: %s of the per-rule limit (%s), runs up to %s per object, %s of the per-CRD limit (%s)",
		cost.Number(r.Cost), cost.Share(r.Cost, r.Limit), cost.Number(r.Limit), runsText(r.Cardinality), cost.Share(r.Cost, r.total), cost.Number(r.total))
}

func percent(cost, limit uint64) float64 { return 100 * float64(cost) / float64(limit) }

func runsText(n uint64) string {
	if n == ^uint64(0) {
		return "unboundedly many times"
	}
	if n == 1 {
		return "once"
	}
	return cost.Number(n) + " times"
}

// costDiagnostics are information diagnostics on the rules whose cost
// is at least warn percent of a limit (below the refusal, which validate
// reports as an error).
func costDiagnostics(lines []string, rules []placedRule, warn int) []protocol.Diagnostic {
	if warn < 0 {
		return nil
	}
	if warn == 0 {
		warn = 50
	}
	var out []protocol.Diagnostic
	for _, r := range rules {
		if r.Over() || (percent(r.Cost, r.Limit) < float64(warn) && percent(r.Cost, r.total) < float64(warn)) {
			continue
		}
		out = append(out, protocol.Diagnostic{Severity: protocol.DiagnosticSeverityInformation, Source: source, Code: "CELCost",
			Message: "CEL rule " + costText(r), Range: rangeOf(lines, r.line, r.column, "rule", "CELCost")})
	}
	return out
}
