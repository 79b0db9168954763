package policytest

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/crdtest"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"k8s.io/apiserver/pkg/authentication/user"
)

// Kind is the kind of the results a Test gives, among a suite's
// onCreate and onUpdate cases.
const Kind = "admission"

// Runner answers Tests.
type Runner struct {
	// Env is where objects are checked: the CRDs custom resources need
	// (its catalog), the built-in kinds, the namespace of objects without
	// one.
	Env *validate.Environment
	// Sources reads the files a Test names that are not local.
	Sources manifest.Sources
	// User sends the requests of a Test that names no UserInfo.
	User user.Info
	// Match, when set, runs only the results whose "TEST/POLICY/RESOURCE"
	// name it matches.
	Match *regexp.Regexp
}

// Run answers every result of every Test, in order: a crdtest.Result
// per expected result and resource (a Test that cannot run, one result
// standing for its cases). Notes say what was left alone: the results of
// Kyverno's own policies, the fields of the format that are Kyverno's.
//
// Tests run together (each has its own chains, and a chain's start is
// mostly a wait), their results in the order of the Tests.
func (r *Runner) Run(ctx context.Context, tests []*Test) (results []crdtest.Result, notes []string) {
	outs, saids := make([][]crdtest.Result, len(tests)), make([][]string, len(tests))
	parallel.On(len(tests), len(tests), func(i int) {
		outs[i], saids[i] = r.runTest(ctx, tests[i])
	})
	for i := range tests {
		results = append(results, outs[i]...)
		notes = append(notes, saids[i]...)
	}
	return results, notes
}

// Given counts the cases and suites tests hold: a result per resource it
// names, and a Test that cannot be read as one.
func Given(tests []*Test) crdtest.Given {
	g := crdtest.Given{Suites: len(tests)}
	for _, t := range tests {
		g.Cases += max(t.cases(), 1)
	}
	return g
}

// cases is how many results t asks for: one per resource of each result.
func (t *Test) cases() int {
	n := 0
	for _, res := range t.Results {
		n += max(len(res.names()), 1)
	}
	return n
}

func (r *Runner) runTest(ctx context.Context, t *Test) ([]crdtest.Result, []string) {
	cannot := func(err error) []crdtest.Result {
		return []crdtest.Result{{File: t.File, Line: t.Line, Suite: t.Name, Status: crdtest.Errored, Message: err.Error(), Cases: max(t.cases(), 1)}}
	}
	if t.Err != nil {
		return cannot(t.Err), nil
	}
	notes := t.unread()
	fx, err := r.fixture(ctx, t)
	if err != nil {
		return cannot(err), notes
	}
	notes = append(notes, fx.notes...)
	a := newAdmissions(r, fx)
	defer a.close()
	var ours []string
	for _, res := range t.Results {
		if (fx.validating(res.Policy) != nil || fx.mutating(res.Policy) != nil) && !slices.Contains(ours, res.Policy) {
			ours = append(ours, res.Policy)
		}
	}
	a.start(ctx, ours)
	var out []crdtest.Result
	var kyverno []string
	for _, res := range t.Results {
		ours := fx.validating(res.Policy) != nil || fx.mutating(res.Policy) != nil
		if !ours && (fx.kyverno[res.Policy] != "" || res.Rule != "") && !res.IsValidatingAdmissionPolicy && !res.IsMutatingAdmissionPolicy {
			kyverno = append(kyverno, res.Policy)
			continue
		}
		names := res.names()
		if len(names) == 0 {
			out = append(out, crdtest.Result{File: t.File, Line: res.Line, Suite: t.Name, Kind: Kind, Name: res.Policy, Status: crdtest.Errored,
				Message: "the result names no resource (resources: or resource:)"})
			continue
		}
		for _, name := range names {
			c := crdtest.Result{File: t.File, Line: res.Line, Suite: t.Name, Kind: Kind, Name: res.Policy + " / " + name}
			if r.Match != nil && !r.Match.MatchString(t.Name+"/"+res.Policy+"/"+name) {
				continue
			}
			start := time.Now()
			a.answer(ctx, t, res, name, &c)
			c.Duration = time.Since(start)
			out = append(out, c)
		}
	}
	if len(kyverno) > 0 {
		notes = append(notes, kyvernoNote(t, kyverno, len(t.Results)))
	}
	return out, notes
}

// kyvernoNote says which results of t were left to Kyverno.
func kyvernoNote(t *Test, policies []string, of int) string {
	var uniq []string
	for _, p := range policies {
		if !slices.Contains(uniq, p) {
			uniq = append(uniq, p)
		}
	}
	what := fmt.Sprintf("%s of Kyverno's own policies (%s) skipped", report.Plural(len(policies), "result", "results"), strings.Join(uniq, ", "))
	if len(policies) == of {
		what = fmt.Sprintf("skipped: its results are of Kyverno's own policies (%s)", strings.Join(uniq, ", "))
	}
	return fmt.Sprintf("%s:%d: Test %q: %s; kubectl crd test answers those of ValidatingAdmissionPolicies and MutatingAdmissionPolicies (run kyverno test for the others)", t.File, t.Line, t.Name, what)
}

// unread says which fields of t are Kyverno's, and not read here.
func (t *Test) unread() []string {
	var fields []string
	for name, set := range map[string]bool{
		"exceptions": len(t.Exceptions) > 0, "checks": len(t.Checks) > 0, "jsonPayload": len(t.JSONPayload) > 0,
		"jsonPayloads": len(t.JSONPayloads) > 0, "targetResources": len(t.TargetResources) > 0, "context": len(t.Context) > 0,
		"clusterResources": len(t.ClusterResources) > 0,
	} {
		if set {
			fields = append(fields, name)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	slices.Sort(fields)
	return []string{fmt.Sprintf("%s:%d: Test %q: %s not read: Kyverno's own, for its policies", t.File, t.Line, t.Name, strings.Join(fields, ", "))}
}
