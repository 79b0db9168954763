// Package lint checks CRD schemas against the Kubernetes API conventions:
// what kube-api-linter checks on Go types, checked on the schema the
// server sees (whatever wrote it), and what only a schema shows. Each
// finding is at the line and column of the offending field in its file.
package lint

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Finding is one check broken at one field of one version of a CRD.
type Finding struct {
	File     string          `json:"file"`
	Line     int             `json:"line"`
	Column   int             `json:"column"`
	CRD      string          `json:"crd"`
	Version  string          `json:"version"`
	Check    string          `json:"check"`
	Severity report.Severity `json:"severity"`
	// Field is the field's path in objects (spec.items[*].name); "" for
	// the version itself.
	Field   string `json:"field"`
	Message string `json:"message"`
	Fix     string `json:"fix"`
	// CostBound is, for an unbounded field a CEL rule iterates, the bound
	// kubectl crd cost finds would bring the rule under its limit (nil:
	// the rule fits already, or no bound on this field alone would do).
	CostBound *int64 `json:"costBound,omitempty"`
}

// Profiles are the sets of default severities: crd (what matters for a
// CRD) and kube (the conventions as for built-in APIs).
var Profiles = []string{"crd", "kube"}

// Options are a run's choices.
type Options struct {
	// Profile is one of Profiles ("": crd).
	Profile string
	// Checks are --check overrides (NAME=error|warning|info|ignore).
	Checks []string
	// Estimates are the CRDs' CEL cost estimates (cost.Estimate) where
	// the caller has them already, by CRD; the others are estimated.
	Estimates map[*apiextensionsv1.CustomResourceDefinition]cost.CRD
}

// severities are each check's severity under opts.
func severities(opts Options) (map[string]report.Severity, error) {
	profile := opts.Profile
	if profile == "" {
		profile = "crd"
	}
	if !slices.Contains(Profiles, profile) {
		return nil, fmt.Errorf("--profile must be one of crd, kube, not %q", opts.Profile)
	}
	defaults := map[string]report.Severity{}
	for _, c := range Checks {
		defaults[c.Name] = c.CRD
		if profile == "kube" {
			defaults[c.Name] = c.Kube
		}
	}
	return report.Severities(defaults, opts.Checks)
}

// CheckOptions checks opts before anything is read.
func CheckOptions(opts Options) error {
	_, err := severities(opts)
	return err
}

// Lint checks every version of each CRD, the findings in the order of
// their files and lines (those without a file, of CRDs read from a
// cluster, in the order of the CRDs, their versions and fields); those
// at severity ignore are left out.
func Lint(crds []catalog.InputCRD, opts Options) ([]Finding, error) {
	sev, err := severities(opts)
	if err != nil {
		return nil, err
	}
	// CRDs are checked on every core: most of the time is the CEL cost
	// estimate of each CRD's rules, which shares nothing between CRDs.
	each := make([][]Finding, len(crds))
	empty := &emptyObjects{answers: map[string]bool{}}
	ignored := map[string]bool{}
	for name, s := range sev {
		ignored[name] = s == report.Ignore
	}
	parallel.Each(len(crds), 1, func(i int) {
		c := crds[i]
		est, ok := opts.Estimates[c.CustomResourceDefinition]
		if !ok {
			est, _ = cost.Estimate(c.CustomResourceDefinition)
		}
		each[i] = lintCRD(c, est, empty, ignored)
	})
	var out []Finding
	for _, found := range each {
		for _, f := range found {
			f.Severity = sev[f.Check]
			if f.Severity != report.Ignore {
				out = append(out, f)
			}
		}
	}
	inFileOrder(out)
	return out, nil
}

// inFileOrder sorts findings by file, line and column (those without a
// file keep their order).
func inFileOrder(findings []Finding) {
	slices.SortStableFunc(findings, func(a, b Finding) int {
		if a.File == "" || b.File == "" {
			return 0
		}
		return cmp.Or(strings.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column), strings.Compare(a.Check, b.Check))
	})
}

// Failed tells whether a finding is at error severity.
func Failed(findings []Finding) bool {
	return slices.ContainsFunc(findings, func(f Finding) bool { return f.Severity == report.Error })
}
