package validate

import (
	"context"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
)

// Accepts tells whether the server accepts a value where s is the schema
// of a field: its defaults applied, then its schema validation and its
// own CEL rules (x-kubernetes-validations, with their limits), as on a
// create. value may be changed (defaulted). lint asks it whether {} is a
// valid object of a schema with no required field, where an anyOf or a
// rule ("exactly one of") may still refuse it.
func Accepts(s *apiextensionsv1.JSONSchemaProps, value any) (bool, error) {
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(s, internal, nil); err != nil {
		return false, err
	}
	st, err := structuralschema.NewStructural(internal)
	if err != nil {
		return false, err
	}
	v, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		return false, err
	}
	structuraldefaulting.Default(value, st)
	if !v.Validate(value).IsValid() {
		return false, nil
	}
	if rules := cel.NewValidator(st, false, celconfig.PerCallLimit); rules != nil {
		if errs, _ := rules.Validate(context.Background(), nil, st, value, nil, celconfig.RuntimeCELCostBudget); len(errs) > 0 {
			return false, nil
		}
	}
	return true, nil
}
