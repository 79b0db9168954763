package cost

import (
	"fmt"
	"io"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/report"
)

func writeMarkdown(w io.Writer, r Report, all bool) error {
	var b strings.Builder
	// A summary first: one row per CRD version.
	b.WriteString("| CRD | version | total | of CRD limit | rules | refused |\n| --- | --- | ---: | ---: | ---: | --- |\n")
	quiet := 0 // versions without rules, not listed
	for _, c := range r.CRDs {
		for _, v := range c.Versions {
			if len(v.Rules) == 0 && !all {
				quiet++
				continue
			}
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %d | %s |\n", c.Name, v.Name, Number(v.Total), Share(v.Total, v.TotalLimit), len(v.Rules), refused(v))
		}
	}
	if quiet > 0 {
		fmt.Fprintf(&b, "\n%s without CEL rules (`--all` lists them).\n", report.Plural(quiet, "CRD version", "CRD versions"))
	}
	b.WriteString("\n")
	for _, c := range r.CRDs {
		for _, v := range c.Versions {
			shown := listed(v.Rules, all)
			if len(shown) == 0 && !v.Over() && v.Headroom == nil {
				continue
			}
			fmt.Fprintf(&b, "### `%s` %s\n\n%s\n\n", c.Name, v.Name, totalLine(v))
			if h := v.Headroom; h != nil {
				fmt.Fprintf(&b, "%s\n\n", h.describe(v))
			}
			if len(shown) == 0 {
				continue
			}
			b.WriteString("| cost | of rule limit | runs | of CRD limit | field | rule | notes |\n| ---: | ---: | ---: | ---: | --- | --- | --- |\n")
			for _, rule := range shown {
				fmt.Fprintf(&b, "| %s | %s | %s | %s | `%s` | `%s` | %s |\n", Number(rule.Cost), Share(rule.Cost, rule.Limit), runs(rule.Cardinality),
					Share(rule.Cost, v.TotalLimit), rule.Field, cell(short(rule.Rule, 200)), cell(strings.Join(details(rule), "; ")))
			}
			if n := len(v.Rules) - len(shown); n > 0 {
				fmt.Fprintf(&b, "\n%s, each under 1%% of its limits.\n", report.Plural(n, "more rule", "more rules"))
			}
			b.WriteString("\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// refused says whether the server refuses a version's schema for cost,
// and for what.
func refused(v Version) string {
	var what []string
	if v.Over() {
		what = append(what, "total")
	}
	rules := 0
	for _, r := range v.Rules {
		if r.Over() || r.MessageExpressionOver() {
			rules++
		}
	}
	if rules > 0 {
		what = append(what, report.Plural(rules, "rule", "rules"))
	}
	if what == nil {
		return "no"
	}
	return "**yes**: " + strings.Join(what, ", ")
}

func cell(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s) }

// short is s on one line, cut to n runes.
func short(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
