package policytest

import (
	"maps"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
)

func orNone(message string) string {
	if message == "" {
		return "(none)"
	}
	return message
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
