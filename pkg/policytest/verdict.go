package policytest

import (
	"context"
	"sync"

	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/internal/memo"
	"github.com/kubectl-crd/kubectl-crd/internal/parallel"

	"github.com/kubectl-crd/kubectl-crd/pkg/crdtest"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
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
		c.Status = crdtest.Passed
		return
	}
	c.Status, c.Message = crdtest.Failed, fmt.Sprintf("expected %s, got %s", want, got)
	if detail != "" {
		c.Message += ": " + detail
	}
}

func orNone(message string) string {
	if message == "" {
		return "(none)"
	}
	return message
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

// split parts an object's errors into the denials of policy and the
// others (the strategy's refusal).
func split(res validate.ObjectResult, policy string) (denied, others []string) {
	for _, p := range res.Errors {
		msg := p.Message
		if p.Field != "" && !strings.HasPrefix(msg, p.Field) {
			msg = p.Field + ": " + msg
		}
		if p.Policy == policy {
			denied = append(denied, msg)
		} else {
			others = append(others, msg)
		}
	}
	return denied, others
}

// admittedWith says what an admitted object carries from policy: its
// warnings (a Warn action) and audit annotations (Audit).
func admittedWith(res validate.ObjectResult, policy string) string {
	var with []string
	for _, w := range res.Warnings {
		if w.Policy == policy {
			with = append(with, "warning: "+w.Message)
		}
	}
	// An Audit action's failures are one annotation, a JSON list naming
	// each policy; a policy's auditAnnotations are keyed by its name.
	keys := slices.Sorted(maps.Keys(res.Audit))
	for _, k := range keys {
		v := res.Audit[k]
		if strings.HasPrefix(k, policy+"/") || strings.Contains(v, `"policy":"`+policy+`"`) {
			with = append(with, "audit annotation "+k+": "+v)
		}
	}
	if len(with) == 0 {
		return ""
	}
	return "admitted, with " + strings.Join(with, "; ")
}

// whySkipped says why the server did not evaluate policy: it has no
// binding, or none of its bindings (nor its matchConstraints and
// matchConditions) match the object.
func (a *admissions) whySkipped(policy string, validating bool) string {
	n := 0
	if validating {
		for _, b := range a.fx.set.ValidatingBindings {
			if b.Spec.PolicyName == policy {
				n++
			}
		}
	} else {
		for _, b := range a.fx.set.MutatingBindings {
			if b.Spec.PolicyName == policy {
				n++
			}
		}
	}
	if n == 0 {
		return "the policy has no binding among the Test's policies, and the server applies a policy only through a binding"
	}
	return "the policy's matchConstraints and matchConditions, and its bindings' matchResources, do not all match the object"
}

// only is the set a result of policy is answered with: it and its
// bindings, every mutating policy of the Test with its bindings (on the
// server they change the object before a validating policy sees it),
// and every param and namespace. (Not the other validating policies: the
// server names only the first denial, and a result is one policy's.)
func (a *admissions) only(policy string) *policies.Set {
	set := a.fx.set
	out := &policies.Set{Params: set.Params, Namespaces: set.Namespaces, Mutating: set.Mutating, MutatingBindings: set.MutatingBindings}
	for _, p := range set.Validating {
		if p.Name == policy {
			out.Validating = append(out.Validating, p)
		}
	}
	for _, b := range set.ValidatingBindings {
		if b.Spec.PolicyName == policy {
			out.ValidatingBindings = append(out.ValidatingBindings, b)
		}
	}
	return out
}

// probe is a set that denies exactly the objects the server evaluates
// policy for: a ValidatingAdmissionPolicy with the policy's paramKind,
// matchConstraints, matchConditions, variables and failurePolicy and one
// validation, false; bindings of it with the policy's bindings' names,
// paramRefs and matchResources, denying. A validating policy's probe
// stands beside the Test's mutating policies, as the policy does; a
// mutating policy's alone, as it sees the object before the others'
// changes.
func (a *admissions) probe(policy string, validating bool) *policies.Set {
	set := a.fx.set
	out := &policies.Set{Params: set.Params, Namespaces: set.Namespaces}
	denies := []admissionregistrationv1.Validation{{Expression: "false", Message: "evaluated"}}
	deny := []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}
	if validating {
		out.Mutating, out.MutatingBindings = set.Mutating, set.MutatingBindings
		for _, p := range set.Validating {
			if p.Name == policy {
				p = p.DeepCopy()
				p.Spec.Validations, p.Spec.AuditAnnotations = denies, nil
				out.Validating = append(out.Validating, p)
			}
		}
		for _, b := range set.ValidatingBindings {
			if b.Spec.PolicyName == policy {
				b = b.DeepCopy()
				b.Spec.ValidationActions = deny
				out.ValidatingBindings = append(out.ValidatingBindings, b)
			}
		}
		return out
	}
	for _, m := range set.Mutating {
		if m.Name != policy {
			continue
		}
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		p.Name = m.Name
		p.Spec = admissionregistrationv1.ValidatingAdmissionPolicySpec{ParamKind: m.Spec.ParamKind, MatchConstraints: m.Spec.MatchConstraints,
			MatchConditions: m.Spec.MatchConditions, Variables: m.Spec.Variables, FailurePolicy: m.Spec.FailurePolicy, Validations: denies}
		out.Validating = append(out.Validating, p.DeepCopy())
	}
	for _, mb := range set.MutatingBindings {
		if mb.Spec.PolicyName != policy {
			continue
		}
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		b.Name = mb.Name
		b.Spec = admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: mb.Spec.PolicyName, ParamRef: mb.Spec.ParamRef,
			MatchResources: mb.Spec.MatchResources, ValidationActions: deny}
		out.ValidatingBindings = append(out.ValidatingBindings, b.DeepCopy())
	}
	return out
}
