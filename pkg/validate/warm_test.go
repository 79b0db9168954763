package validate

import (
	"context"
	"strings"
	"testing"
)

// The warm-up goes the whole way: its CRD builds, its object is defaulted
// (size) and passes the schema and the CEL rule.
func TestWarm(t *testing.T) {
	if err := Warm(); err != nil {
		t.Fatalf("Warm: %v", err)
	}
	// ... and its rule runs: an object that breaks it is refused.
	v, err := NewValidator(warmCRD, "v1")
	if err != nil {
		t.Fatal(err)
	}
	res := v.Create(context.Background(), map[string]any{
		"apiVersion": "warm.kubectl-crd.io/v1", "kind": "Warm",
		"metadata": map[string]any{"name": "warm"},
		"spec":     map[string]any{"name": "a", "size": int64(0)},
	}, "default")
	if res.Err == nil || !strings.Contains(res.Err.Error(), "size 0") {
		t.Errorf("size 0: got %v, want the rule's message \"size 0\"", res.Err)
	}
}
