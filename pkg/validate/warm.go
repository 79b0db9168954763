package validate

import (
	"context"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Warm builds a small validator and checks one object with it, and throws
// both away. The first validator a process builds pays, once, for what the
// server's packages set up on first use (the CEL environments, the
// parser's and checker's tables, the schema validator's caches): about
// three times the cost of the next one. Started on a spare core while the
// command finds its CRDs, it takes that off the path to the first object,
// where the other cores would wait for it. The error says what went wrong
// with the warm-up itself (nothing the user gave); callers may ignore it,
// and a panic is returned as an error, so that a warm-up on a goroutine of
// its own can never end the command.
func Warm() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("warm-up: %v", r)
		}
	}()
	v, err := NewValidator(warmCRD, "v1")
	if err != nil {
		return err
	}
	res := v.create(context.Background(), map[string]any{
		"apiVersion": "warm.kubectl-crd.io/v1", "kind": "Warm",
		"metadata": map[string]any{"name": "warm"},
		"spec":     map[string]any{"name": "a"},
	}, "default")
	if res.Err != nil {
		return res.Err
	}
	if spec, _ := res.Object["spec"].(map[string]any); spec["size"] != int64(1) {
		return fmt.Errorf("warm-up object not defaulted: %v", res.Object)
	}
	return nil
}

// warmCRD has what most CRDs' schemas use: nested objects, a pattern, a
// default, and CEL rules with a message expression.
var warmCRD = &apiextensionsv1.CustomResourceDefinition{
	ObjectMeta: metav1.ObjectMeta{Name: "warms.warm.kubectl-crd.io"},
	Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "warm.kubectl-crd.io",
		Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "warms", Singular: "warm", Kind: "Warm", ListKind: "WarmList"},
		Scope: apiextensionsv1.NamespaceScoped,
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
			Name: "v1", Served: true, Storage: true,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"spec": {
						Type: "object",
						XValidations: apiextensionsv1.ValidationRules{
							{Rule: "!has(self.name) || self.size > 0", MessageExpression: "'size ' + string(self.size)"},
						},
						Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"name": {Type: "string", Pattern: "^[a-z]+$"},
							"size": {Type: "integer", Minimum: new(1.0), Default: &apiextensionsv1.JSON{Raw: []byte("1")}},
						},
					},
				},
			}},
		}},
	},
}
