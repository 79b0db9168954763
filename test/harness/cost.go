package harness

import (
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
)

// CostRefusals are the server's refusals that a cost estimate foresees
// for a CRD, as "FIELD: Forbidden: MESSAGE": a rule or messageExpression
// over the per-expression limit, the expressions the server names as
// making a total too high, a schema whose total is over its limit. Sorted,
// each once (versions that share a schema share its refusals).
func CostRefusals(c cost.CRD) []string {
	const forbidden = ": Forbidden: "
	var out []string
	for _, v := range c.Versions {
		for _, r := range v.Rules {
			if r.Over() {
				out = append(out, r.Path+forbidden+cost.Refusal(cost.RuleCostName, r.Cost, r.Limit))
			}
			if r.MessageExpressionOver() {
				out = append(out, r.MessageExpressionPath+forbidden+cost.Refusal(cost.MessageExpressionCostName, r.MessageExpressionCost, r.Limit))
			}
			if r.Contributes {
				out = append(out, r.Path+forbidden+contributed)
			}
			if r.MessageExpressionContributes {
				out = append(out, r.MessageExpressionPath+forbidden+contributed)
			}
		}
		if v.Over() {
			out = append(out, v.Schema+forbidden+cost.Refusal(cost.TotalCostName, v.Total, v.TotalLimit))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

const contributed = "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"

// CostCauses are the lines of a server's refusal of a CRD ("FIELD:
// MESSAGE", as field.Error and a Status cause give them) that are about
// cost, sorted as CostRefusals sorts its own.
func CostCauses(lines []string) []string {
	var out []string
	for _, l := range lines {
		if strings.Contains(l, "exceeds budget by factor of") || strings.Contains(l, contributed) {
			out = append(out, l)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Tied tells whether the server's choice of the expressions it names for
// a total is not determined: the fourth and the fifth most expensive
// (of those at 1% of the limit or more) cost the same, and the server
// meets them in the order of a Go map's iteration (it walks a schema's
// properties that way), so either may be named.
func Tied(c cost.CRD) bool {
	for _, v := range c.Versions {
		var costs []uint64
		for _, r := range v.Rules {
			if r.Cost >= cost.CRDLimit/100 {
				costs = append(costs, r.Cost)
			}
			if r.MessageExpressionPath != "" && r.MessageExpressionCost >= cost.CRDLimit/100 {
				costs = append(costs, r.MessageExpressionCost)
			}
		}
		slices.Sort(costs)
		slices.Reverse(costs)
		if v.Over() && len(costs) > 4 && costs[3] == costs[4] {
			return true
		}
	}
	return false
}

// WithoutContributors is lines without the expressions named for a total,
// and how many those were.
func WithoutContributors(lines []string) ([]string, int) {
	var out []string
	n := 0
	for _, l := range lines {
		if strings.Contains(l, contributed) {
			n++
			continue
		}
		out = append(out, l)
	}
	return out, n
}
