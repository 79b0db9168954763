package corpus

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"sigs.k8s.io/yaml"
)

// TestCostOfEveryCorpusCRDMatchesTheServer: kubectl crd cost over every
// corpus CRD the server took, in one run of the binary (in seconds,
// without a crash), foresees no refusal; and over the same CRDs with every
// maxItems, maxLength and maxProperties removed, where many rules and
// totals cross the server's limits, it foresees exactly the cost refusals
// of the server's own CRD validation (the function the CRD strategy calls
// on create): which rule, messageExpression or schema, and the factor.
func TestCostOfEveryCorpusCRDMatchesTheServer(t *testing.T) {
	needCorpus(t)
	ctx := context.Background()
	for _, unbounded := range []bool{false, true} {
		change := func(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensionsv1.CustomResourceDefinition, error) {
			return crd, nil
		}
		if unbounded {
			change = withoutBounds
		}
		dir, all := writeProjects(t, change)
		start := time.Now()
		r := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "cost", "-f", dir, "-o", "json")
		elapsed := time.Since(start)
		var report cost.Report
		if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil || r.Code > 1 {
			t.Fatalf("exit %d, %v\n%s", r.Code, err, r.Stderr)
		}
		estimates := map[string]cost.CRD{}
		for _, c := range report.CRDs {
			estimates[c.Name] = c
		}
		refused, refusals := 0, 0
		for _, crd := range all {
			internal := &apiextensions.CustomResourceDefinition{}
			if err := catalog.Scheme().Convert(crd, internal, nil); err != nil {
				t.Fatal(err)
			}
			var lines []string
			for _, e := range validation.ValidateCustomResourceDefinition(ctx, internal) {
				lines = append(lines, e.Error())
			}
			want := harness.CostCauses(lines)
			est, ok := estimates[crd.Name]
			if !ok {
				t.Errorf("%s: not in the report", crd.Name)
				continue
			}
			got := harness.CostRefusals(est)
			if harness.Tied(est) {
				// Which of equally expensive expressions the server names
				// for a total is its map order's: only how many.
				g, gn := harness.WithoutContributors(got)
				w, wn := harness.WithoutContributors(want)
				if strings.Join(g, "\n") == strings.Join(w, "\n") && gn == wn {
					got = want
				}
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("%s (unbounded %v): the server's validation refuses\n%s\nkubectl crd cost foresees\n%s", crd.Name, unbounded, strings.Join(want, "\n"), strings.Join(got, "\n"))
			}
			if len(want) > 0 {
				refused++
				refusals += len(want)
			}
		}
		if wantCode := map[bool]int{false: 0, true: 1}[unbounded]; r.Code != wantCode {
			t.Errorf("unbounded %v: exit %d, want %d", unbounded, r.Code, wantCode)
		}
		t.Logf("unbounded %v: %d CRDs, %d refused by the server for cost (%d refusals), in %v (%d MiB at most)", unbounded, len(all), refused, refusals, elapsed.Round(time.Millisecond), r.PeakRSS>>20)
		if unbounded && refused < 20 {
			t.Errorf("only %d CRDs without their bounds are refused: the comparison would prove little", refused)
		}
		// Without bounds, every expensive rule's fitting bounds are
		// searched: a few times the time.
		if limit := map[bool]time.Duration{false: 60 * time.Second, true: 180 * time.Second}[unbounded]; elapsed > limit {
			t.Errorf("cost took %v over the corpus (unbounded %v)", elapsed, unbounded)
		}
	}
}

// withoutBounds is crd with every maxItems, maxLength and maxProperties
// of its schemas removed.
func withoutBounds(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensionsv1.CustomResourceDefinition, error) {
	data, err := json.Marshal(crd)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	var strip func(any)
	strip = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			delete(v, "maxItems")
			delete(v, "maxLength")
			delete(v, "maxProperties")
			for _, c := range v {
				strip(c)
			}
		case []any:
			for _, c := range v {
				strip(c)
			}
		}
	}
	spec, _ := obj["spec"].(map[string]any)
	strip(spec["versions"])
	if data, err = json.Marshal(obj); err != nil {
		return nil, err
	}
	out := &apiextensionsv1.CustomResourceDefinition{}
	return out, json.Unmarshal(data, out)
}

// writeProjects writes every project's CRDs the server took, each
// changed by change, into a file per project of a new directory; it
// returns the directory and the CRDs written.
func writeProjects(t *testing.T, change func(*apiextensionsv1.CustomResourceDefinition) (*apiextensionsv1.CustomResourceDefinition, error)) (string, []*apiextensionsv1.CustomResourceDefinition) {
	t.Helper()
	dir := t.TempDir()
	var all []*apiextensionsv1.CustomResourceDefinition
	for project, crds := range projects {
		var docs []byte
		for _, crd := range crds {
			crd, err := change(crd)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, crd)
			data, err := yaml.Marshal(crd)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(append(docs, "---\n"...), data...)
		}
		if err := os.WriteFile(filepath.Join(dir, project+".yaml"), docs, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, all
}
