package schemaproof

import (
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// Validator is the server's schema validator of a CRD version with the
// proof in front of its creates: where the proof holds, Validate answers
// the server's answer for a clean object (a result without errors)
// without walking kube-openapi's validators; elsewhere the server's
// validator answers. Updates are always the server's (ratcheting compares
// with the old object).
type Validator struct {
	apiservervalidation.SchemaValidator
	root *node
}

// New puts the proof of schema, the OpenAPI schema server was built from
// (NewSchemaValidator returns both), in front of server.
func New(server apiservervalidation.SchemaValidator, schema *spec.Schema) *Validator {
	return &Validator{SchemaValidator: server, root: compile(schema)}
}

// Validate is the server's Validate, answered without it where the proof
// holds.
func (v *Validator) Validate(value any, options ...apiservervalidation.ValidationOption) *validate.Result {
	if v.root.clean(value) {
		return &validate.Result{}
	}
	return v.SchemaValidator.Validate(value, options...)
}

// Clean reports whether the proof holds for value: the server's schema
// validation would find nothing. False is "not proven", not "invalid".
func (v *Validator) Clean(value any) bool { return v.root.clean(value) }
