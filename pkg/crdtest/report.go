package crdtest

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
)

// Formats are test's output formats.
var Formats = []string{"text", "json", "junit"}

// Summary counts the verdicts of the cases run (a suite that cannot run
// counts its cases as errors), the suites they are in, and the cases and
// suites given (--run may run fewer).
type Summary struct {
	Passed int `json:"passed"`
	Failed int `json:"failed"`
	Errors int `json:"errors"`
	Suites int `json:"suites"`
	// CasesGiven and SuitesGiven count every case and suite read (a
	// suite without cases as one).
	CasesGiven  int `json:"casesGiven"`
	SuitesGiven int `json:"suitesGiven"`
}

// Given counts the cases and suites read.
type Given struct {
	Cases, Suites int
}

// Add adds the counts of o.
func (g Given) Add(o Given) Given {
	return Given{Cases: g.Cases + o.Cases, Suites: g.Suites + o.Suites}
}

// GivenBy counts the cases and suites of suites: a suite without cases
// (one that cannot be read as a suite) stands for itself, as its result
// does.
func GivenBy(suites []*Suite) Given {
	g := Given{Suites: len(suites)}
	for _, suite := range suites {
		g.Cases += max(len(suite.caseNames()), 1)
	}
	return g
}

// Summarize counts results, of the cases and suites given.
func Summarize(results []Result, given Given) Summary {
	s := Summary{CasesGiven: given.Cases, SuitesGiven: given.Suites}
	ran := map[string]bool{}
	for _, r := range results {
		ran[r.File+"\x00"+r.Suite] = true
		switch {
		case r.Status == Passed:
			s.Passed++
		case r.Status == Failed:
			s.Failed++
		case r.Kind == "":
			s.Errors += max(r.Cases, 1)
		default:
			s.Errors++
		}
	}
	s.Suites = len(ran)
	return s
}

// Report is the JSON output: every case and the counts.
type Report struct {
	KubernetesVersion string   `json:"kubernetesVersion"`
	Cases             []Result `json:"cases"`
	Summary           Summary  `json:"summary"`
	// Notes say what was read and left alone (the results of Kyverno's
	// own policies in a Kyverno Test).
	Notes []string `json:"notes,omitempty"`
}

// Write writes results in format: text (a line per case that did not
// pass, a unified diff where the stored object differs, and the counts),
// json or junit (a test suite per suite file).
func Write(w io.Writer, format string, rep Report, suites []*Suite) error {
	switch format {
	case "json":
		if rep.Cases == nil {
			rep.Cases = []Result{}
		}
		return report.WriteJSON(w, rep)
	case "junit":
		return writeJUnit(w, rep.Cases)
	}
	var b strings.Builder
	for _, n := range rep.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	ranOn := variantsUsed(rep.Cases)
	for _, v := range ranOn {
		fmt.Fprintf(&b, "%s: suite %q ran against %s\n", v.file, v.suite, v.crd)
	}
	// The note is for suites that ran: one that could not says why.
	ran := ranOn
	for _, r := range rep.Cases {
		if r.Kind == "" {
			ran = append(ran, suiteVariant{file: r.File, suite: r.Suite})
		}
	}
	if gated := featureGated(suites, ran); len(gated) > 0 {
		fmt.Fprintf(&b, "note: the feature gates of %s are not set here: each suite runs against its CRD as given (its crd: file, or the CRD its crdName names in --crds or the cluster)\n", strings.Join(gated, ", "))
	}
	for _, r := range rep.Cases {
		if r.Status == Passed {
			continue
		}
		what := r.Suite
		if r.Kind != "" {
			what += " / " + r.Kind + " / " + r.Name
		}
		word := "FAIL"
		if r.Status == Errored {
			word = "ERROR"
		}
		place := fmt.Sprintf("%s:%d", r.File, r.Line)
		if r.Column > 0 {
			place += fmt.Sprintf(":%d", r.Column)
		}
		// A message's further lines (why fields were not stored) are
		// indented under it, as the diff is.
		fmt.Fprintf(&b, "%s: %s %s: %s\n", place, word, what, strings.ReplaceAll(r.Message, "\n", "\n    "))
		if r.Diff != "" {
			for line := range strings.Lines(r.Diff) {
				b.WriteString("    " + line)
			}
		}
	}
	s := rep.Summary
	total := s.Passed + s.Failed + s.Errors
	var notes []string
	if s.Failed > 0 {
		notes = append(notes, fmt.Sprintf("%d failed", s.Failed))
	}
	if s.Errors > 0 {
		notes = append(notes, fmt.Sprintf("%d could not run", s.Errors))
	}
	fmt.Fprintf(&b, "%d of %s passed", s.Passed, report.Plural(total, "case", "cases"))
	if len(notes) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(notes, ", "))
	}
	fmt.Fprintf(&b, " in %s", report.Plural(s.Suites, "suite", "suites"))
	if total < s.CasesGiven || s.Suites < s.SuitesGiven {
		fmt.Fprintf(&b, " (of %s in %s given)", report.Plural(s.CasesGiven, "case", "cases"), report.Plural(s.SuitesGiven, "suite", "suites"))
	}
	if v := rep.KubernetesVersion; v != "" && v != kubeversion.OrNewest(nil).String() {
		fmt.Fprintf(&b, " (as Kubernetes %s)", v)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// suiteVariant is the file of its CRD a suite ran against, chosen by
// its feature gates.
type suiteVariant struct{ file, suite, crd string }

// variantsUsed are the suites that ran against a file chosen among their
// CRD's files per feature set, in the order of results.
func variantsUsed(results []Result) []suiteVariant {
	var out []suiteVariant
	for _, r := range results {
		v := suiteVariant{r.File, r.Suite, r.CRD}
		if r.CRD != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out
}

// featureGated are the suite files whose suites name feature gates and
// ran against their CRD as given: not a file chosen by the gates, nor
// not at all (the suites of except).
func featureGated(suites []*Suite, except []suiteVariant) []string {
	var files []string
	seen := map[string]bool{}
	for _, s := range suites {
		if slices.ContainsFunc(except, func(v suiteVariant) bool { return v.file == s.File && v.suite == s.Name }) {
			continue
		}
		if len(s.FeatureGates) > 0 && !seen[s.File] {
			seen[s.File] = true
			files = append(files, s.File)
		}
	}
	return files
}

// writeJUnit writes a test suite per suite file, a test case per case
// (classname: the file and onCreate or onUpdate).
func writeJUnit(w io.Writer, results []Result) error {
	j := report.JUnit{Name: "kubectl crd test"}
	for _, r := range results {
		s := j.Suite(r.File)
		c := report.Case{Name: r.Name, Classname: r.File + "/" + r.Kind}
		if r.CRD != "" {
			c.SystemOut = "ran against " + r.CRD
		}
		if r.Kind == "" {
			c.Name, c.Classname = r.Suite, r.File
		}
		text := fmt.Sprintf("%s:%d: %s\n%s", r.File, r.Line, r.Message, r.Diff)
		switch r.Status {
		case Failed:
			c.Failure = &report.Message{Message: r.Message, Text: text}
		case Errored:
			c.Error = &report.Message{Message: r.Message, Text: text}
		}
		s.Cases = append(s.Cases, c)
	}
	return j.Write(w)
}
