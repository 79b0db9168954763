package validate

import (
	"errors"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Result is what the server would say of one object on create.
type Result struct {
	// Unknown are the paths of fields the server would drop (strict field
	// validation rejects them).
	Unknown []string
	// Err is the server's error: usually an Invalid StatusError whose
	// causes are the field errors; nil when the object is valid.
	Err error
	// Warnings are the server's warnings.
	Warnings []string
	// Object is the object as the server would store it (when valid).
	Object map[string]any
	// Admitted is what admission policies added: audit annotations, the
	// mutation.
	Admitted policies.Admitted
}

// Causes returns the field errors of a result's error, as the server lists
// them in its Status.
func (r Result) Causes() []FieldError {
	var out []FieldError
	var decode *builtin.DecodeError
	var se *apierrors.StatusError
	var mutation *policies.MutationError
	switch {
	case r.Err == nil, errors.As(r.Err, &mutation):
		// A mutation's refusal is one problem (see mutationRefused).
	case errors.As(r.Err, &decode):
		out = append(out, FieldError{Field: decode.Field, Type: string(metav1.StatusReasonBadRequest), Message: decode.Error()})
	case errors.As(r.Err, &se) && se.ErrStatus.Details != nil && len(se.ErrStatus.Details.Causes) > 0:
		for _, c := range se.ErrStatus.Details.Causes {
			typ := string(c.Type)
			if typ == "" {
				// An admission policy's denial: a cause of the status's
				// reason (Invalid, or the policy's own).
				typ = string(se.ErrStatus.Reason)
			}
			out = append(out, FieldError{Field: c.Field, Type: typ, Message: c.Message})
		}
	case errors.As(r.Err, &se):
		out = append(out, FieldError{Type: string(se.ErrStatus.Reason), Message: se.Error()})
	default:
		out = append(out, FieldError{Type: string(field.ErrorTypeInternal), Message: r.Err.Error()})
	}
	return out
}

// FieldError is one problem with one field.
type FieldError struct {
	Field   string `json:"field"`
	Type    string `json:"type"`
	Message string `json:"message"`
}

// mutationRefused is the problem of a request the server refuses because
// of what a mutating policy made of it: the server's reason and text
// (kubectl prints "Error from server (REASON): TEXT"), and the policy,
// which the server's text does not name.
func mutationRefused(err error) (Problem, bool) {
	var mutation *policies.MutationError
	if !errors.As(err, &mutation) {
		return Problem{}, false
	}
	p := Problem{Type: string(metav1.StatusReasonInternalError), Message: mutation.Error(), Policy: mutation.Policy}
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		p.Type, p.Message = string(se.ErrStatus.Reason), se.ErrStatus.Message
	}
	if p.Policy != "" {
		p.Message += fmt.Sprintf(" (the object as MutatingAdmissionPolicy '%s' made it)", p.Policy)
	}
	return p, true
}
