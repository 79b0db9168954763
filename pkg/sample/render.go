package sample

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Render makes the sample of a CRD version and writes it as format: yaml
// (with each field's description and constraints as comments when
// comments is set, and the server's refusal, if any, in a comment) or
// json. refused says, per field, why the server would still refuse the
// sample (none: it accepts it).
func Render(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, version string, opts Options, format string, comments bool) (data []byte, refused []string, err error) {
	s, err := Make(ctx, crd, version, opts)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range s.Refused {
		refused = append(refused, fmt.Sprintf("%s: %s", c.Field, c.Message))
	}
	if format == "json" {
		data, err := json.MarshalIndent(s.Object, "", "    ")
		return append(data, '\n'), refused, err
	}
	root, err := explain.Schema(crd, version)
	if err != nil {
		return nil, nil, err
	}
	data, err = YAML(s.Object, root, comments, refused)
	return data, refused, err
}

// YAMLOf makes the YAML samples of CRD versions for a reference page (the
// docs' Sampler): required fields, or every field with full, and the
// server's refusal in a comment where it has one.
func YAMLOf(ctx context.Context) func(crd *apiextensionsv1.CustomResourceDefinition, version string, full bool) (string, error) {
	return func(crd *apiextensionsv1.CustomResourceDefinition, version string, full bool) (string, error) {
		data, _, err := Render(ctx, crd, version, Options{Full: full}, "yaml", false)
		return string(data), err
	}
}
