package schemaproof_test

import (
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// TestProofConcurrently: validate's workers share each CRD version's
// validator, and the proof compiles its patterns when first matched; the
// same objects checked from several goroutines at once get the answers
// they get one at a time (and, under -race, no race).
func TestProofConcurrently(t *testing.T) {
	versions := readVersions(t, "../../test/testdata", "../../examples")
	type check struct {
		v     *version
		value map[string]any
		want  bool
	}
	var checks []check
	for _, v := range versions {
		for _, o := range v.objects {
			checks = append(checks, check{v, o.value, v.proof.Clean(runtime.DeepCopyJSON(o.value))})
		}
	}
	if len(checks) == 0 {
		t.Fatal("no objects in the data")
	}
	// Fresh validators: their patterns not compiled yet.
	fresh := readVersions(t, "../../test/testdata", "../../examples")
	byName := map[string]*version{}
	for _, v := range fresh {
		byName[v.name] = v
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for _, c := range checks {
				if got := byName[c.v.name].proof.Clean(c.value); got != c.want {
					t.Errorf("%s: proven %v, one at a time %v", c.v.name, got, c.want)
				}
			}
		})
	}
	wg.Wait()
}
