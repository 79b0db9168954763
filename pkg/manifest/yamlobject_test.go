package manifest

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// sameAsKubectl fails when the direct reading of text answers and its
// JSON or object differ from kubectl's reading; it tells whether it
// answered.
func sameAsKubectl(t *testing.T, name string, text []byte) bool {
	t.Helper()
	js, obj := readDirect(text)
	if obj == nil {
		return false
	}
	want, wantObj := kubectlReads(text)
	if wantObj == nil {
		t.Fatalf("%s: read directly what kubectl's reading refuses:\n%s", name, text)
	}
	if !bytes.Equal(js, want) || !reflect.DeepEqual(obj, wantObj) {
		t.Fatalf("%s: read directly as\n%s\n%#v\nkubectl reads\n%s\n%#v", name, js, obj, want, wantObj)
	}
	return true
}

// TestReadDirectEqualsKubectl reads every YAML document of the test data
// and examples, and of the corpus of real-world CRDs and examples where
// there is one (KUBECTL_CRD_CORPUS, or ../shared/corpus beside the
// repository, as test/corpus finds it), both ways; most must be read
// directly.
func TestReadDirectEqualsKubectl(t *testing.T) {
	roots := []string{"../../test/testdata", "../../examples"}
	corpus := os.Getenv("KUBECTL_CRD_CORPUS")
	if corpus == "" {
		corpus = "../../../shared/corpus"
	}
	if _, err := os.Stat(corpus); err == nil {
		roots = append(roots, corpus)
	}
	objects, direct := 0, 0
	eachYAMLFile(roots, func(path string, data []byte) {
		for _, c := range splitYAML("f", data) {
			if _, obj := kubectlReads(c.text); obj != nil {
				objects++
			}
			if sameAsKubectl(t, path, c.text) {
				direct++
			}
		}
	})
	if direct < objects*3/4 {
		t.Fatalf("%d of %d objects read directly: the direct reading declines too much", direct, objects)
	}
	t.Logf("%d of %d objects read directly, each as kubectl reads it", direct, objects)
}

// TestReadDirectDeclines: what the trip through JSON may change, or what
// kubectl's reading refuses, is not read directly; asKubectlReads still
// reads what kubectl reads.
func TestReadDirectDeclines(t *testing.T) {
	for _, text := range []string{
		"a: 1.0\n",                  // kubectl's JSON has 1: an integer once decoded
		"a: 1.5\n",                  // a float
		"a: 18446744073709551615\n", // past int64
		"1: a\n",                    // a key YAML reads as a number
		"yes: a\n",                  // ... or as a boolean
		"\"1\": a\n",                // a string key that could collide with 1
		"a: !!binary /w==\n",        // not UTF-8 (the byte 0xff)
		"a: 1\na: 2\n",              // a key given twice
		"- a\n",                     // not an object
		"a: [1\n",                   // broken
	} {
		if js, _ := readDirect([]byte(text)); js != nil {
			t.Errorf("%q read directly as %s", text, js)
		}
		wantJS, _ := kubectlReads([]byte(text))
		if gotJS, _ := asKubectlReads([]byte(text)); !bytes.Equal(gotJS, wantJS) {
			t.Errorf("%q: read as %s, kubectl reads %s", text, gotJS, wantJS)
		}
	}
	// Why a float is declined: taken as it is, it would not be what the
	// server decodes.
	_, obj := kubectlReads([]byte("a: 1.0\n"))
	if _, isInt := obj["a"].(int64); !isInt {
		t.Fatalf("kubectl's reading of 1.0 gives %T; the declining above guards nothing", obj["a"])
	}
}

// FuzzReadDirect: whatever is read directly, kubectl's reading gives the
// same JSON and object.
func FuzzReadDirect(f *testing.F) {
	seeds(f, "../../test/testdata/crds", "../../test/testdata/objects", "../../test/testdata/bad", "../../examples/objects/valid", "../../examples/objects/invalid")
	f.Add([]byte("a: 1\nb: {c: [1, 2, -0, 0x1f, 0777]}\nd: ~\ne: [yes, on, 'no', !!str 3]\n"))
	f.Add([]byte("a: &x {b: [1]}\nc: *x\nd:\n  <<: *x\n  e: 2017-01-01\n"))
	f.Add([]byte("a: !!binary aGVsbG8=\nb: \"\\u00e9\\t\"\nc: |\n  text\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, c := range splitYAML("f", data) {
			sameAsKubectl(t, "f", c.text)
		}
	})
}

// TestReadDirectNesting: around the JSON decoder's limit (10,000 levels
// in all, where the YAML parser counts block and flow nesting apart),
// the direct reading answers what kubectl's reading answers: a document
// nested within the limit is read the same, one nested past it is
// refused by both, block and flow nesting together.
func TestReadDirectNesting(t *testing.T) {
	refused := 0
	for _, levels := range []int{9990, 9998, 9999, 10000, 10001, 10002, 10050} {
		for _, block := range []int{1, 40} {
			var b strings.Builder
			for i := range block {
				b.WriteString(strings.Repeat("  ", i) + "k:\n")
			}
			flow := levels - block - 1 // the object, the block maps, then lists
			b.WriteString(strings.Repeat("  ", block) + "l: " + strings.Repeat("[", flow) + strings.Repeat("]", flow) + "\n")
			text := []byte(b.String())
			name := fmt.Sprintf("%d levels, %d of them block", levels, block+1)
			wantJS, want := kubectlReads(text)
			gotJS, got := asKubectlReads(text)
			if !bytes.Equal(gotJS, wantJS) || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: read as %.40s..., kubectl reads %.40s...", name, gotJS, wantJS)
			}
			if want == nil {
				refused++
				if js, _ := readDirect(text); js != nil {
					t.Errorf("%s: read directly what kubectl refuses", name)
				}
			}
		}
	}
	if refused == 0 {
		t.Error("kubectl's reading refused none: the limit is not reached")
	}
}
