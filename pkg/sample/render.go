package sample

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Rendered is a sample written out, with what the server says of it.
type Rendered struct {
	Data []byte
	// Refused says, per field, why the server would still refuse the
	// sample (none: it accepts it).
	Refused []string
	// LeftOut says, per field a full sample does not have, why: the
	// server refuses the object with it.
	LeftOut []string
}

// Render makes the sample of a CRD version and writes it as format: yaml
// (with each field's description and constraints as comments when
// comments is set, and the server's refusal, if any, in a comment) or
// json.
func Render(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, version string, opts Options, format string, comments bool) (Rendered, error) {
	s, err := Make(ctx, crd, version, opts)
	if err != nil {
		return Rendered{}, err
	}
	var r Rendered
	for _, c := range s.Refused {
		r.Refused = append(r.Refused, fmt.Sprintf("%s: %s", c.Field, c.Message))
	}
	for _, l := range s.LeftOut {
		r.LeftOut = append(r.LeftOut, fmt.Sprintf("%s: the server refuses the object with it (%s: %s)", l.Field, l.Why.Field, l.Why.Message))
	}
	if format == "json" {
		data, err := json.MarshalIndent(s.Object, "", "    ")
		r.Data = append(data, '\n')
		return r, err
	}
	root, err := explain.Schema(crd, version)
	if err != nil {
		return Rendered{}, err
	}
	r.Data, err = YAML(s.Object, root, comments, r.Refused)
	return r, err
}

// YAMLOf makes the YAML samples of CRD versions for a reference page (the
// docs' Sampler): required fields, or every field with full, and the
// server's refusal in a comment where it has one.
func YAMLOf(ctx context.Context) func(crd *apiextensionsv1.CustomResourceDefinition, version string, full bool) (string, error) {
	return func(crd *apiextensionsv1.CustomResourceDefinition, version string, full bool) (string, error) {
		r, err := Render(ctx, crd, version, Options{Full: full}, "yaml", false)
		return string(r.Data), err
	}
}
