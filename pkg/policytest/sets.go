package policytest

import (
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

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
