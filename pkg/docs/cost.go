package docs

import (
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
)

// costKey names a rule among a field's constraints: where below the
// field it applies (explain.Constraint's Of) and its text.
func costKey(of, rule string) string { return of + "\x00" + rule }

// ruleCosts gives the fields of a version their rules' estimated costs
// (as shares of the server's limits), and returns those of the root. A
// rule's field in pkg/cost (spec.rows[*], spec.routes.*) is the docs'
// field, or the field above it with the rule on its items or values.
func ruleCosts(est cost.CRD, version string, fields []*Field) map[string]string {
	byPath := map[string]*Field{}
	walkFields(fields, func(f *Field) { byPath[f.Path] = f })
	root := map[string]string{}
	for _, v := range est.Versions {
		if v.Name != version {
			continue
		}
		for _, r := range v.Rules {
			text := fmt.Sprintf("cost %s (%s of the rule limit, %s of the CRD limit)", cost.Number(r.Cost), cost.Share(r.Cost, r.Limit), cost.Share(r.Cost, v.TotalLimit))
			if r.Field == "(the object)" {
				root[costKey("", r.Rule)] = text
				continue
			}
			path, of := r.Field, ""
			for {
				if f := byPath[path]; f != nil {
					if f.Costs == nil {
						f.Costs = map[string]string{}
					}
					f.Costs[costKey(of, r.Rule)] = text
					break
				}
				var step string
				switch {
				case strings.HasSuffix(path, "[*]"):
					path, step = strings.TrimSuffix(path, "[*]"), "items"
				case strings.HasSuffix(path, ".*"):
					path, step = strings.TrimSuffix(path, ".*"), "values"
				default:
					step = ""
				}
				if step == "" {
					break
				}
				of = strings.TrimSuffix(step+"."+of, ".")
			}
		}
	}
	return root
}

// costedConstraint is a constraint with the cost of its rule, if it is
// one and has a cost.
type costedConstraint struct {
	explain.Constraint
	Cost string
}

// costed pairs constraints with their rules' costs, for the page.
func costed(cs []explain.Constraint, costs map[string]string) []costedConstraint {
	out := make([]costedConstraint, len(cs))
	for i, c := range cs {
		out[i] = costedConstraint{Constraint: c}
		if c.Validation != nil {
			out[i].Cost = costs[costKey(c.Of, c.Validation.Rule)]
		}
	}
	return out
}
