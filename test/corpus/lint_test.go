package corpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/lint"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestLintTheCorpus: kubectl crd lint over every corpus project's CRDs,
// in one run of the binary under the kube profile (every check on):
// it ends (exit 0 or 1), every finding is at a line of its file and on a
// field its CRD's version has, and the counts per check are logged (the
// table in docs/lint.md).
func TestLintTheCorpus(t *testing.T) {
	needCorpus(t)
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"lint", "--profile", "kube", "-o", "json"}
	schemas := map[string]*apiextensionsv1.JSONSchemaProps{} // by FILE CRD VERSION
	for _, e := range entries {
		dir := filepath.Join(corpusDir, e.Name(), "crds")
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		args = append(args, dir)
		docs, err := readDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		crds, _, err := catalog.Split(docs)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range crds {
			for _, v := range c.Spec.Versions {
				if v.Schema != nil {
					schemas[c.Doc.File+" "+c.Name+" "+v.Name] = v.Schema.OpenAPIV3Schema
				}
			}
		}
	}
	start := time.Now()
	r := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, args...)
	elapsed := time.Since(start)
	var report struct{ Findings []lint.Finding }
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil || r.Code > 1 {
		t.Fatalf("exit %d, %v\n%s", r.Code, err, r.Stderr)
	}
	counts := map[string]int{}
	for _, f := range report.Findings {
		counts[f.Check]++
		schema := schemas[f.File+" "+f.CRD+" "+f.Version]
		switch {
		case f.Line < 1:
			t.Errorf("%s %s %s %s: no line", f.File, f.CRD, f.Check, f.Field)
		case schema == nil:
			t.Errorf("%s:%d: %s %s: no such CRD version in the file", f.File, f.Line, f.CRD, f.Version)
		case f.Field != "" && !hasField(schema, f.Field):
			t.Errorf("%s:%d: %s: %s has no field %s", f.File, f.Line, f.Check, f.CRD+" "+f.Version, f.Field)
		}
	}
	var lines []string
	for _, c := range lint.Checks {
		lines = append(lines, fmt.Sprintf("%s %d", c.Name, counts[c.Name]))
	}
	t.Logf("%d findings over %d CRD versions in %v (%.1f MiB at most):\n%s", len(report.Findings), len(schemas),
		elapsed.Round(time.Millisecond), float64(r.PeakRSS)/(1<<20), strings.Join(lines, "\n"))
}

// hasField tells whether a field path (spec.items[*].name) names a field
// of the schema. A property name may hold dots: at each step the longest
// name the rest starts with is taken.
func hasField(s *apiextensionsv1.JSONSchemaProps, path string) bool {
	for path != "" {
		path = strings.TrimPrefix(path, ".")
		if rest, ok := strings.CutPrefix(path, "[*]"); ok {
			switch {
			case s.Items != nil && s.Items.Schema != nil:
				s = s.Items.Schema
			case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
				s = s.AdditionalProperties.Schema
			default:
				return false
			}
			path = rest
			continue
		}
		var names []string
		for k := range s.Properties {
			if strings.HasPrefix(path, k) && (len(path) == len(k) || path[len(k)] == '.' || path[len(k)] == '[') {
				names = append(names, k)
			}
		}
		if len(names) == 0 {
			return false
		}
		name := slices.MaxFunc(names, func(a, b string) int { return len(a) - len(b) })
		next := s.Properties[name]
		s, path = &next, path[len(name):]
	}
	return true
}
