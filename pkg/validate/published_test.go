package validate

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// schemas answers for one kind with a schema, as a cluster's /openapi/v3
// would.
type schemas map[schema.GroupVersionKind]*spec.Schema

func (s schemas) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	if found := s[gvk]; found != nil {
		return found, nil
	}
	return nil, fmt.Errorf("%s: %w", gvk, resolver.ErrSchemaNotFound)
}

// TestPublishedSchema checks objects of a kind no CRD defines against the
// schema a cluster publishes for it: marked as checked by schema only,
// with the schema's errors at their places; a kind without one is
// skipped.
func TestPublishedSchema(t *testing.T) {
	var gadget spec.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"spec":{"type":"object","required":["size"],
		"properties":{"size":{"type":"integer","minimum":1},"shape":{"type":"string","enum":["round","square"]}}}}}`), &gadget); err != nil {
		t.Fatal(err)
	}
	opts := Options{Published: schemas{{Group: "example.org", Version: "v1", Kind: "Gadget"}: &gadget}}
	r := check(t, "gadgets.yaml", `apiVersion: example.org/v1
kind: Gadget
metadata: {name: good}
spec: {size: 2, shape: round}
---
apiVersion: example.org/v1
kind: Gadget
metadata: {name: bad}
spec:
  size: 0
  shape: oval
---
apiVersion: example.org/v1
kind: Widget
metadata: {name: unknown}
`, opts)
	var got []string
	for _, res := range r.Results {
		got = append(got, fmt.Sprintf("%s %s %s %d", res.Name, res.Status, res.Checks, len(res.Warnings)))
	}
	if want := []string{"good valid schema 1", "bad invalid schema 1", "unknown skipped  0"}; !slices.Equal(got, want) {
		t.Errorf("results %q, want %q", got, want)
	}
	if got, want := where(Report{Results: r.Results[1:2]}), []string{"10:3 spec.size FieldValueInvalid", "11:3 spec.shape FieldValueNotSupported"}; !slices.Equal(got, want) {
		t.Errorf("errors %q, want %q", got, want)
	}
	if w := r.Results[0].Warnings[0]; w.Type != SchemaOnly || w.Line != 2 {
		t.Errorf("warning %+v", w)
	}
}
