package cost

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/kubectl-crd/kubectl-crd/pkg/report"
)

// Formats are cost's output formats.
var Formats = []string{"text", "json", "markdown"}

// Report is cost's output: every CRD's estimates.
type Report struct {
	KubernetesVersion string `json:"kubernetesVersion"`
	CRDs              []CRD  `json:"crds"`
}

// Over tells whether the server refuses some CRD for its rules' cost.
func (r Report) Over() bool {
	for _, c := range r.CRDs {
		for _, v := range c.Versions {
			if v.Over() {
				return true
			}
			for _, rule := range v.Rules {
				if rule.Over() || rule.MessageExpressionOver() {
					return true
				}
			}
		}
	}
	return false
}

// Write writes the report as text (a table per CRD version, the most
// expensive rule first, with the server's refusal where it refuses),
// json or markdown (for a pull request comment: a summary table first).
// Text and markdown list only the rules that matter (see notable) unless
// all is set; json lists every rule, with every driver.
func Write(w io.Writer, format string, r Report, all bool) error {
	switch format {
	case "json":
		if r.CRDs == nil {
			r.CRDs = []CRD{}
		}
		return report.WriteJSON(w, r)
	case "markdown":
		return writeMarkdown(w, r, all)
	}
	var b strings.Builder
	quiet := 0 // versions without rules, not listed
	for _, c := range r.CRDs {
		for _, v := range c.Versions {
			if len(v.Rules) == 0 && !all {
				quiet++
				continue
			}
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "%s %s: %s\n", c.Name, v.Name, totalLine(v))
			if h := v.Headroom; h != nil {
				fmt.Fprintf(&b, "  %s\n", h.describe(v))
			}
			shown := listed(v.Rules, all)
			if len(shown) > 0 {
				tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "  #\tCOST\tOF RULE LIMIT\tRUNS\tOF CRD LIMIT\tFIELD\tRULE")
				for k, rule := range shown {
					fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\t%s\n", k+1, Number(rule.Cost), Share(rule.Cost, rule.Limit), runs(rule.Cardinality),
						Share(rule.Cost, v.TotalLimit), rule.Field, short(rule.Rule, 60))
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				writeDetails(&b, shown)
			}
			if n := len(v.Rules) - len(shown); n > 0 {
				fmt.Fprintf(&b, "  %s, each under 1%% of its limits (--all lists them)\n", report.Plural(n, "more rule", "more rules"))
			}
		}
	}
	if quiet > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s without CEL rules (--all lists them)\n", report.Plural(quiet, "CRD version", "CRD versions"))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeDetails writes the lines under the rules, each line once with the
// rules it is said of ("1-22: driven by: spec.subsets (no maxItems)"):
// rules of one field's many children are often driven alike.
func writeDetails(b *strings.Builder, rules []Rule) {
	var lines []string
	of := map[string][]int{}
	for k, rule := range rules {
		for _, line := range details(rule) {
			if of[line] == nil {
				lines = append(lines, line)
			}
			of[line] = append(of[line], k+1)
		}
	}
	for _, line := range lines {
		fmt.Fprintf(b, "  %s: %s\n", ranges(of[line]), line)
	}
}

// ranges writes ascending numbers as ranges: 1-3, 5, 7-9.
func ranges(ns []int) string {
	var parts []string
	for i := 0; i < len(ns); {
		j := i
		for j+1 < len(ns) && ns[j+1] == ns[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", ns[i], ns[j]))
		} else {
			parts = append(parts, fmt.Sprint(ns[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// notable tells whether a rule is worth a line: it or its
// messageExpression costs at least 1% of the per-rule limit (every rule
// the server refuses or names for a total does), or it does not compile.
// The others are counted.
func notable(r Rule) bool {
	return r.Cost >= r.Limit/100 || r.MessageExpressionCost >= r.Limit/100 || r.Error != ""
}

// listed are the rules text and markdown list.
func listed(rules []Rule, all bool) []Rule {
	if all {
		return rules
	}
	var out []Rule
	for _, r := range rules {
		if notable(r) {
			out = append(out, r)
		}
	}
	return out
}

// shownDrivers is how many drivers text and markdown name per rule, the
// most effective first; json has them all.
const shownDrivers = 3

// totalLine is a version's total against the per-CRD limit.
func totalLine(v Version) string {
	s := fmt.Sprintf("total %s of %s (%s)", Number(v.Total), Number(v.TotalLimit), Share(v.Total, v.TotalLimit))
	if v.Over() {
		s += "; the server refuses it: " + Refusal(TotalCostName, v.Total, v.TotalLimit)
	}
	return s
}

// details are the lines under a rule: its refusal, what drives its cost,
// its growing calls, its compile error.
func details(r Rule) []string {
	var out []string
	if r.Error != "" {
		out = append(out, "does not compile: "+r.Error)
	}
	if r.Over() {
		out = append(out, "refused: "+Refusal(RuleCostName, r.Cost, r.Limit))
	}
	if r.Contributes {
		out = append(out, "named by the server among the rules that make the total too high")
	}
	if r.MessageExpressionPath != "" && (r.MessageExpressionOver() || r.MessageExpressionContributes) {
		s := fmt.Sprintf("messageExpression: cost %s (%s of the rule limit)", Number(r.MessageExpressionCost), Share(r.MessageExpressionCost, r.Limit))
		if r.MessageExpressionOver() {
			s += "; refused: " + Refusal(MessageExpressionCostName, r.MessageExpressionCost, r.Limit)
		}
		if r.MessageExpressionContributes {
			s += "; named by the server among the expressions that make the total too high"
		}
		out = append(out, s)
	}
	if len(r.Drivers) > 0 {
		var ds []string
		for _, d := range r.Drivers[:min(len(r.Drivers), shownDrivers)] {
			s := d.Field + " (no " + d.Keyword
			switch {
			case d.Bound != nil:
				s += fmt.Sprintf("; %s: %d or less makes the rule fit", d.Keyword, *d.Bound)
			case r.Over():
				s += "; no bound on it alone makes the rule fit"
			}
			ds = append(ds, s+")")
		}
		if n := len(r.Drivers) - shownDrivers; n > 0 {
			ds = append(ds, fmt.Sprintf("and %d more", n))
		}
		out = append(out, "driven by: "+strings.Join(ds, ", "))
	}
	if len(r.Calls) > 0 {
		out = append(out, "calls: "+strings.Join(r.Calls, ", "))
	}
	return out
}
