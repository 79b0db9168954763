package sample

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// crdsUnder reads every CRD of the YAML files under root, each name once.
func crdsUnder(t testing.TB, root string) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var out []*apiextensionsv1.CustomResourceDefinition
	seen := map[string]bool{}
	_ = filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		files, err := catalog.ReadFiles([]string{path}, nil, nil)
		if err != nil {
			return nil
		}
		list, _ := files.List(context.Background())
		for _, c := range list {
			if !seen[c.Name] {
				seen[c.Name] = true
				out = append(out, c.CustomResourceDefinition)
			}
		}
		return nil
	})
	return out
}

// TestSamplesPassTheServersValidation makes the minimal and the full
// sample of every served version of the test CRDs (and the corpus's, when
// present) and counts those the server's validation takes; the
// differential test against kube-apiserver itself is test/corpus's.
func TestSamplesPassTheServersValidation(t *testing.T) {
	roots := []string{filepath.Join("..", "..", "test", "testdata", "crds"), filepath.Join("..", "..", "examples")}
	corpus := os.Getenv("KUBECTL_CRD_CORPUS")
	if corpus == "" {
		corpus = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	if _, err := os.Stat(corpus); err == nil {
		roots = append(roots, corpus)
	}
	for _, root := range roots {
		for _, full := range []bool{false, true} {
			made, accepted := 0, 0
			causes := map[string]int{}
			for _, crd := range crdsUnder(t, root) {
				for _, v := range crd.Spec.Versions {
					if !v.Served {
						continue
					}
					s, err := Make(context.Background(), crd, v.Name, Options{Full: full})
					if err != nil {
						t.Errorf("%s %s: %v", crd.Name, v.Name, err)
						continue
					}
					made++
					if len(s.Refused) == 0 {
						accepted++
						continue
					}
					c := s.Refused[0]
					causes[fmt.Sprintf("%s %s: %s: %s", crd.Name, v.Name, c.Field, firstLine(c.Message))]++
				}
			}
			t.Logf("%s, full %v: %d of %d samples pass (%.1f%%)", filepath.Base(root), full, accepted, made, 100*float64(accepted)/float64(max(made, 1)))
			var list []string
			for c := range causes {
				list = append(list, c)
			}
			sort.Strings(list)
			for _, c := range list {
				t.Logf("  refused: %s", c)
			}
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

var _ = validate.FieldError{}

// TestHardSchema makes both samples of a CRD that asks for every kind of
// value the generator knows, and checks what the schema alone says of
// them beside the validator's verdict.
func TestHardSchema(t *testing.T) {
	crd := crdsUnder(t, filepath.Join("testdata", "hard.yaml"))[0]
	for _, full := range []bool{false, true} {
		s, err := Make(context.Background(), crd, "v1", Options{Full: full})
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Refused) > 0 {
			t.Fatalf("full %v: refused: %v\n%v", full, s.Refused, s.Object)
		}
		spec := s.Object["spec"].(map[string]any)
		t.Logf("full %v: %v", full, spec)
		if size := spec["size"].(int64); size <= 10 || size > 20 || size%4 != 0 {
			t.Errorf("size %d", size)
		}
		if step := spec["step"].(int64); step > -3 || step%3 != 0 {
			t.Errorf("step %d", step)
		}
		if r, ok := spec["ratio"].(float64); !ok || r <= 0 || r >= 1 {
			t.Errorf("ratio %v", spec["ratio"])
		}
		tags := spec["tags"].([]any)
		seen := map[any]bool{}
		for _, tag := range tags {
			if !matches(`^[a-z]{2}-[0-9]+$`, tag.(string)) || seen[tag] {
				t.Errorf("tags %v: not matching or not distinct", tags)
			}
			seen[tag] = true
		}
		if len(tags) < 3 || len(spec["routes"].([]any)) < 2 || len(spec["labels"].(map[string]any)) < 2 {
			t.Errorf("counts: %v", spec)
		}
		if spec["target"] != "some" {
			t.Errorf("target %v, want the value not excludes", spec["target"])
		}
		_, a := spec["choice"].(map[string]any)["a"]
		_, b := spec["choice"].(map[string]any)["b"]
		if a == b {
			t.Errorf("choice %v: one branch of the oneOf, not both or none", spec["choice"])
		}
		_, p := spec["primary"]
		_, q := spec["secondary"]
		if p == q {
			t.Errorf("primary and secondary: exactly one (the rules), got %v and %v", p, q)
		}
		if tmpl := spec["template"].(map[string]any); tmpl["apiVersion"] == nil || tmpl["kind"] == nil {
			t.Errorf("template %v: an embedded resource needs apiVersion and kind", tmpl)
		}
		out, err := YAML(s.Object, crd.Spec.Versions[0].Schema.OpenAPIV3Schema, true, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"apiVersion: sample.example.com/v1\nkind: Puzzle\nmetadata:\n  name: puzzle-sample\n", "# rule: has(self.primary) || has(self.secondary)", "  # minimum: 10 (exclusive)\n", "  # items pattern: ^[a-z]{2}-[0-9]+$\n"} {
			if !strings.Contains(string(out), want) {
				t.Errorf("full %v: the YAML with comments lacks %q:\n%s", full, want, out)
			}
		}
	}
}

func TestFromPattern(t *testing.T) {
	for _, c := range []struct {
		pattern string
		lo, hi  int
	}{
		{`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, 0, 63},
		{`^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$`, 0, 100},
		{`^[A-Z][a-zA-Z]+$`, 5, 10},
		{`^sha256:[a-f0-9]{64}$`, 0, 100},
		{`^(Always|Never|IfNotPresent)$`, 0, 20},
		{`^[^/]+/[^/]+$`, 0, 100},
	} {
		v, ok := fromPattern(c.pattern, c.lo, c.hi, 0)
		if !ok || !matches(c.pattern, v) || len(v) < max(c.lo, 1) || len(v) > c.hi {
			t.Errorf("%s [%d,%d]: %q %v", c.pattern, c.lo, c.hi, v, ok)
		}
		w, _ := fromPattern(c.pattern, c.lo, c.hi, 1)
		t.Logf("%s: %q, %q", c.pattern, v, w)
	}
}

// TestFullSampleSaysWhatIsLeftOut: a full sample fills a list that has a
// default (not the default, which would stand for its every field), keeps
// every field the server accepts together, and names each field it
// leaves out with the server's refusal; the server accepts it.
func TestFullSampleSaysWhatIsLeftOut(t *testing.T) {
	crds := crdsUnder(t, filepath.Join("testdata", "full.yaml"))
	if len(crds) != 1 {
		t.Fatalf("%d CRDs", len(crds))
	}
	s, err := Make(context.Background(), crds[0], "v1", Options{Full: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Refused) > 0 {
		t.Fatalf("the server refuses the full sample: %v", s.Refused)
	}
	rules, _ := s.Object["spec"].(map[string]any)["rules"].([]any)
	if len(rules) == 0 {
		t.Fatalf("no rules: %v", s.Object)
	}
	rule := rules[0].(map[string]any)
	var left []string
	for _, l := range s.LeftOut {
		left = append(left, l.Field+": "+l.Why.Message)
	}
	for _, f := range []string{"match", "name", "timeout", "filter"} {
		if _, ok := rule[f]; !ok {
			t.Errorf("spec.rules[0].%s is not in the full sample %v (left out: %q)", f, rule, left)
		}
	}
	// Of each pair a rule forbids together, one is in, and the other is
	// named with the rule's message.
	for _, pair := range []struct{ a, b, at, why string }{
		{"redirect", "backends", "spec.rules[0].", "redirect must not be used together with backends"},
		{"header", "mirror", "spec.rules[0].filter.", "only one of header and mirror"},
	} {
		in := rule
		if pair.at != "spec.rules[0]." {
			in = rule["filter"].(map[string]any)
		}
		_, hasA := in[pair.a]
		_, hasB := in[pair.b]
		out := pair.b
		if hasB {
			out = pair.a
		}
		if hasA == hasB {
			t.Errorf("%s%s and %s: both in or both out: %v", pair.at, pair.a, pair.b, in)
			continue
		}
		if !slices.ContainsFunc(left, func(l string) bool { return strings.HasPrefix(l, pair.at+out+": ") && strings.Contains(l, pair.why) }) {
			t.Errorf("%s%s is left out without a word: left out %q", pair.at, out, left)
		}
	}
	if len(left) != 2 {
		t.Errorf("left out %q; want the two fields the rules forbid", left)
	}
}
