package lint

import (
	"encoding/json"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// emptyObjects answers whether {} is a valid value of an object schema
// with no required field and no minProperties: it is, unless an anyOf,
// oneOf, allOf or not, or a CEL rule ("exactly one of", as controller-gen
// writes +kubebuilder:validation:ExactlyOneOf) refuses it. Those the
// server's own validators decide, once per schema in a run: the same
// types recur in a CRD's versions and across CRDs (a quarter of them are
// new in the corpus), and each answer builds validators and compiles
// rules.
type emptyObjects struct {
	mu      sync.Mutex
	answers map[string]bool // by the schema's JSON
}

func (e *emptyObjects) accepts(s *apiextensionsv1.JSONSchemaProps) bool {
	if len(s.XValidations) == 0 && len(s.AnyOf) == 0 && len(s.OneOf) == 0 && len(s.AllOf) == 0 && s.Not == nil {
		return true
	}
	key, err := json.Marshal(s)
	if err != nil {
		return true
	}
	e.mu.Lock()
	ok, seen := e.answers[string(key)]
	e.mu.Unlock()
	if seen {
		return ok
	}
	// A schema the server's validators cannot be built from is not
	// judged here: the finding stands.
	ok, err = validate.Accepts(s, map[string]any{})
	ok = ok || err != nil
	e.mu.Lock()
	e.answers[string(key)] = ok
	e.mu.Unlock()
	return ok
}
