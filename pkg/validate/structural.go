// Package validate does to custom resources, on the client, what the API
// server does to them on create: pruning, defaulting, and validation.
package validate

import (
	"fmt"

	apihelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
)

// Structural returns the structural schema the server keeps for a CRD
// version (defaults pruned, as the server prunes them), or nil when the
// version has no schema.
func Structural(crd *apiextensionsv1.CustomResourceDefinition, version string) (*structuralschema.Structural, error) {
	props, err := internalSchema(crd, version)
	if err != nil {
		return nil, err
	}
	return structural(crd, version, props)
}

// internalSchema is a CRD version's schema as the server's validation
// code takes it (the internal type); nil when the version has none.
func internalSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*apiextensions.JSONSchemaProps, error) {
	val, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil || val == nil {
		return nil, err
	}
	internal := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
		return nil, err
	}
	return internal.OpenAPIV3Schema, nil
}

func structural(crd *apiextensionsv1.CustomResourceDefinition, version string, props *apiextensions.JSONSchemaProps) (*structuralschema.Structural, error) {
	if props == nil {
		return nil, nil
	}
	s, err := structuralschema.NewStructural(props)
	if err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s version %s has no structural schema: %w", crd.Name, version, err)
	}
	s = s.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(s); err != nil {
		return nil, err
	}
	return s, nil
}

// PruneAndDefault does to a new object what the server does before it
// validates it: drops the fields the schema does not know (and returns
// their paths), drops nulls where the schema forbids them, and applies
// defaults. s may be nil (no schema: nothing to do).
func PruneAndDefault(obj map[string]any, s *structuralschema.Structural, preserveUnknownFields bool) (unknown []string) {
	if s == nil {
		return nil
	}
	if !preserveUnknownFields {
		unknown = structuralpruning.PruneWithOptions(obj, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s)
	}
	structuraldefaulting.Default(obj, s)
	return unknown
}

// AsCreated changes obj into what the server would store on create:
// status dropped where the status subresource is on, then PruneAndDefault
// with the schema of the object's version.
func AsCreated(crd *apiextensionsv1.CustomResourceDefinition, version string, obj map[string]any) error {
	if sub, err := apihelpers.GetSubresourcesForVersion(crd, version); err == nil && sub != nil && sub.Status != nil {
		delete(obj, "status")
	}
	s, err := Structural(crd, version)
	if err != nil {
		return err
	}
	PruneAndDefault(obj, s, crd.Spec.PreserveUnknownFields)
	return nil
}
