package schemaproof_test

import (
	"hash/fnv"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"k8s.io/apimachinery/pkg/runtime"
)

type randChoices struct{ r *rand.Rand }

func (c randChoices) next() int { return c.r.IntN(256) }

// tally counts what the proof answered against the server's validation.
type tally struct {
	checked, serverClean, proven, serverInvalid int
}

// check is the soundness test of one value: where the proof holds, the
// server's schema validation must find nothing.
func (tl *tally) check(t testing.TB, v *version, where string, value map[string]any) {
	t.Helper()
	proven := v.proof.Clean(value)
	res := v.server.Validate(runtime.DeepCopyJSON(value))
	tl.checked++
	if res.IsValid() {
		tl.serverClean++
	} else {
		tl.serverInvalid++
	}
	if proven {
		tl.proven++
		if !res.IsValid() {
			t.Errorf("%s (%s): proven clean, but the server finds %v in %v", where, v.name, res.Errors, value)
		}
	}
}

// TestProofIsSound checks every object of the data (the project's test
// data and examples, and the corpus when present) against its CRD
// version both ways, as written and pruned and defaulted as the server
// validates it, and mutations of each (twenty, or
// KUBECTL_CRD_PROOF_MUTATIONS; the random choices are seeded by
// KUBECTL_CRD_PROOF_SEED, 0 unless set, which CI sets anew on each run):
// wherever the proof holds, the server's schema validation must find
// nothing. The proof must also hold for most of what the server finds
// clean, or the fast path would be a path never taken.
func TestProofIsSound(t *testing.T) {
	mutations, seed := envInt(t, "KUBECTL_CRD_PROOF_MUTATIONS", 20), envInt(t, "KUBECTL_CRD_PROOF_SEED", 0)
	dirs := dataDirs()
	if raceDetector {
		// See raceDetector: the project's data only, as read.
		mutations, dirs = 0, dirs[:2]
	}
	versions := readVersions(t, dirs...)
	var asRead, mutated tally
	for _, v := range versions {
		h := fnv.New64a()
		h.Write([]byte(v.name + strconv.Itoa(seed)))
		seed := h.Sum64()
		for i, o := range v.objects {
			pruned := runtime.DeepCopyJSON(o.value)
			validate.PruneAndDefault(pruned, v.structural, v.preserve)
			asRead.check(t, v, o.where, o.value)
			asRead.check(t, v, o.where+" (pruned)", pruned)
			r := randChoices{rand.New(rand.NewPCG(seed, uint64(i)))}
			for m := range mutations {
				mutated.check(t, v, o.where+" (mutated)", mutate(pruned, r, 1+m%3))
			}
		}
	}
	t.Logf("seed %d, %d mutations of each object: %d CRD versions; as read: %d values, %d clean by the server, %d proven; mutated: %d values, %d invalid by the server, %d proven",
		seed, mutations, len(versions), asRead.checked, asRead.serverClean, asRead.proven, mutated.checked, mutated.serverInvalid, mutated.proven)
	if asRead.serverClean == 0 || (mutations > 0 && mutated.serverInvalid == 0) {
		t.Fatalf("the data has no clean or no invalid values: the test proves nothing")
	}
	if share := float64(asRead.proven) / float64(asRead.serverClean); share < 0.9 {
		t.Errorf("the proof holds for %.0f%% of the values the server finds clean; want at least 90%%", 100*share)
	}
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// FuzzProof mutates the objects of the data in the ways invalid objects
// differ from valid ones (see mutate) and checks the proof against the
// server's schema validation.
func FuzzProof(f *testing.F) {
	dirs := dataDirs()
	if raceDetector {
		dirs = dirs[:2] // see raceDetector
	}
	versions := readVersions(f, dirs...)
	var with []*version
	for _, v := range versions {
		if len(v.objects) > 0 {
			with = append(with, v)
		}
	}
	if len(with) == 0 {
		f.Fatal("no objects in the data")
	}
	for i := range with {
		f.Add(uint16(i), []byte{0, 0, 0, 1, byte(i), 2, 3, 4, 5})
	}
	f.Fuzz(func(t *testing.T, which uint16, data []byte) {
		v := with[int(which)%len(with)]
		c := byteChoices(data)
		o := v.objects[c.next()%len(v.objects)]
		value := runtime.DeepCopyJSON(o.value)
		if c.next()%2 == 0 {
			validate.PruneAndDefault(value, v.structural, v.preserve)
		}
		var tl tally
		tl.check(t, v, o.where+" (fuzzed)", mutate(value, &c, 1+c.next()%4))
	})
}
