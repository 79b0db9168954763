package policytest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/internal/memo"
	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/crdtest"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
)

// The results a Test expects.
const (
	pass = "pass"
	fail = "fail"
	skip = "skip"
)

// admissions answers the results of one Test: a chain of the server's
// policy plugins per policy (see only) and a probe per policy (see
// probe), started together before the first answer (a chain waits a
// moment for its informers; together they wait once), closed with the
// Test.
type admissions struct {
	r      *Runner
	fx     *fixture
	chains memo.Map[string, *policies.Chain]
	mu     sync.Mutex
	keys   []string
}

func newAdmissions(r *Runner, fx *fixture) *admissions {
	return &admissions{r: r, fx: fx}
}

func (a *admissions) close() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, k := range a.keys {
		if c, ok := a.chains.Known(k); ok {
			c.Close()
		}
	}
}

// start starts the chains of the policies named, together.
func (a *admissions) start(ctx context.Context, names []string) {
	parallel.On(2*len(names), 2*len(names), func(i int) {
		policy := names[i/2]
		validating := a.fx.validating(policy) != nil
		if i%2 == 0 {
			_, _ = a.chain(ctx, "policy/"+policy, func() *policies.Set { return a.only(policy) })
		} else {
			_, _ = a.chain(ctx, "probe/"+policy, func() *policies.Set { return a.probe(policy, validating) })
		}
	})
}

// chain is the chain of the set key names, started from make the first
// time.
func (a *admissions) chain(ctx context.Context, key string, make func() *policies.Set) (*policies.Chain, error) {
	return a.chains.Get(key, func() (*policies.Chain, error) {
		a.mu.Lock()
		a.keys = append(a.keys, key)
		a.mu.Unlock()
		return a.r.Env.StartAdmission(ctx, a.r.Env.Catalog, make(), a.fx.user, nil)
	})
}

// answer answers one result for the resource name: fail when the policy
// (through any of its bindings) denies the object, pass when a binding of
// it matches the object and it admits it, skip when none matches; for a
// mutating policy with patchedResources, the object as the mutating
// policies leave it must be that file's.
func (a *admissions) answer(ctx context.Context, t *Test, res Result, name string, c *crdtest.Result) {
	errored := func(format string, args ...any) {
		c.Status, c.Message = crdtest.Errored, fmt.Sprintf(format, args...)
	}
	want := res.expected()
	if want != pass && want != fail && want != skip {
		errored("result %q: the server's answers are pass, fail or skip", want)
		return
	}
	vap, mp := a.fx.validating(res.Policy), a.fx.mutating(res.Policy)
	switch {
	case vap == nil && mp == nil:
		errored("no ValidatingAdmissionPolicy or MutatingAdmissionPolicy %q among the Test's policies", res.Policy)
		return
	case res.IsValidatingAdmissionPolicy && vap == nil:
		errored("%q is not a ValidatingAdmissionPolicy of the Test's policies (a MutatingAdmissionPolicy is)", res.Policy)
		return
	case res.IsMutatingAdmissionPolicy && mp == nil:
		errored("%q is not a MutatingAdmissionPolicy of the Test's policies (a ValidatingAdmissionPolicy is)", res.Policy)
		return
	}
	obj, ok := a.fx.find(res.Kind, name)
	if !ok {
		errored("no resource %s of kind %s among the Test's resources", name, res.Kind)
		return
	}
	got, detail, checked, err := a.verdict(ctx, res.Policy, vap != nil, obj)
	if err != nil {
		errored("%s: %v", name, err)
		return
	}
	if got == want && res.Message != "" && !strings.Contains(detail, res.Message) {
		c.Status, c.Message = crdtest.Failed, fmt.Sprintf("%s as expected, but the message %q is not in the server's: %s", got, res.Message, orNone(detail))
		return
	}
	if got == want && got == pass && mp != nil && res.patched() != "" {
		a.comparePatched(t, res, obj, checked.Mutation, c)
		return
	}
	if got == want {
		// The server's words stay with a case as expected too (a
		// denial; a Warn binding's warning, an Audit's annotation).
		c.Status, c.Message = crdtest.Passed, detail
		return
	}
	c.Status, c.Message = crdtest.Failed, fmt.Sprintf("expected %s, got %s", want, got)
	if detail != "" {
		c.Message += ": " + detail
	}
}

// verdict is the server's answer for policy on obj: the object checked
// through the policy's chain (see only), then, where it is admitted,
// through its probe, which denies exactly the objects the policy is
// evaluated for. checked is the first check's result.
func (a *admissions) verdict(ctx context.Context, policy string, validating bool, obj object) (verdict, detail string, checked validate.ObjectResult, err error) {
	chain, err := a.chain(ctx, "policy/"+policy, func() *policies.Set { return a.only(policy) })
	if err != nil {
		return "", "", checked, err
	}
	if checked, err = a.check(ctx, obj, chain); err != nil {
		return "", "", checked, err
	}
	denied, others := split(checked, policy)
	switch {
	case len(denied) > 0:
		return fail, strings.Join(denied, "; "), checked, nil
	case len(others) > 0:
		return "", "", checked, fmt.Errorf("the server refuses the object before the policy's answer: %s", strings.Join(others, "; "))
	}
	probe, err := a.chain(ctx, "probe/"+policy, func() *policies.Set { return a.probe(policy, validating) })
	if err != nil {
		return "", "", checked, fmt.Errorf("probing %s: %w", policy, err)
	}
	matched, err := a.check(ctx, obj, probe)
	if err != nil {
		return "", "", checked, err
	}
	if probed, _ := split(matched, policy); len(probed) == 0 {
		return skip, a.whySkipped(policy, validating), checked, nil
	}
	return pass, admittedWith(checked, policy), checked, nil
}

// check checks obj as a create through chain, as validate --policies
// does.
func (a *admissions) check(ctx context.Context, obj object, chain *policies.Chain) (validate.ObjectResult, error) {
	opts := a.r.Env.Options
	opts.Admission = chain
	rep, err := a.r.Env.Check(ctx, manifest.InputOf(obj.doc.File, obj.doc.JSON), opts)
	if err != nil {
		return validate.ObjectResult{}, err
	}
	if len(rep.Results) != 1 {
		return validate.ObjectResult{}, fmt.Errorf("%d results for one object", len(rep.Results))
	}
	res := rep.Results[0]
	switch res.Status {
	case validate.Errored:
		return res, fmt.Errorf("%s", res.Reason)
	case validate.Skipped:
		return res, fmt.Errorf("not checked: %s (give its CRD with --crds)", res.Reason)
	}
	return res, nil
}
