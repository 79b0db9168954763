package corpus

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	"sigs.k8s.io/yaml"
)

// TestCostOfEveryCorpusRule: kubectl crd cost over every corpus CRD the
// server took, in one run of the binary (in seconds, without a crash),
// prints for every rule the cost the server's estimator gives it, called
// here directly as the oracle: the rule compiled at its node, times the
// cardinality of the node's context.
func TestCostOfEveryCorpusRule(t *testing.T) {
	needCorpus(t)
	dir := t.TempDir()
	n := 0
	for project, crds := range projects {
		var docs []byte
		for _, crd := range crds {
			data, err := yaml.Marshal(crd)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(append(docs, "---\n"...), data...)
			n++
		}
		if err := os.WriteFile(filepath.Join(dir, project+".yaml"), docs, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	r := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "cost", "-f", dir, "-o", "json")
	elapsed := time.Since(start)
	var report cost.Report
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil || r.Code != 0 {
		t.Fatalf("exit %d (the server took these CRDs: none is over), %v\n%s", r.Code, err, r.Stderr)
	}
	printed := map[string]uint64{}
	for _, c := range report.CRDs {
		for _, v := range c.Versions {
			for _, rule := range v.Rules {
				printed[c.Name+" "+rule.Path] = rule.Cost
			}
		}
	}
	rules := 0
	for _, crds := range projects {
		for _, crd := range crds {
			internal := &apiextensions.CustomResourceDefinition{}
			if err := catalog.Scheme().Convert(crd, internal, nil); err != nil {
				t.Fatal(err)
			}
			for path, want := range oracle(internal) {
				rules++
				if got, ok := printed[crd.Name+" "+path]; !ok || got != want {
					t.Errorf("%s %s: kubectl crd cost prints %d (%v), the estimator gives %d", crd.Name, path, got, ok, want)
				}
			}
		}
	}
	if rules != len(printed) {
		t.Errorf("kubectl crd cost printed %d rules, the estimator found %d", len(printed), rules)
	}
	t.Logf("%d CRDs, %d rules, in %v (%d MiB at most)", n, rules, elapsed.Round(time.Millisecond), r.PeakRSS>>20)
	if elapsed > 30*time.Second {
		t.Errorf("cost took %v over the corpus", elapsed)
	}
}

// oracle gives each rule of a CRD (by the path the server names it by)
// the cost the server's estimator gives it.
func oracle(crd *apiextensions.CustomResourceDefinition) map[string]uint64 {
	out := map[string]uint64{}
	var visit func(s *apiextensions.JSONSchemaProps, p *field.Path, ctx *validation.CELSchemaContext)
	visit = func(s *apiextensions.JSONSchemaProps, p *field.Path, ctx *validation.CELSchemaContext) {
		if len(s.XValidations) > 0 && ctx != nil {
			if info, err := ctx.TypeInfo(); err == nil && info != nil {
				results, err := cel.Compile(info.Schema, info.DeclType, celconfig.PerCallLimit,
					environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), cel.NewExpressionsEnvLoader())
				if err == nil {
					for i, cr := range results {
						card := cr.MaxCardinality
						if ctx.MaxCardinality != nil {
							card = *ctx.MaxCardinality
						}
						c := cr.MaxCost * card
						if card != 0 && c/card != cr.MaxCost {
							c = ^uint64(0)
						}
						out[p.Child("x-kubernetes-validations").Index(i).Child("rule").String()] = c
					}
				}
			}
		}
		if a := s.AdditionalProperties; a != nil && a.Schema != nil {
			visit(a.Schema, p.Child("additionalProperties"), ctx.ChildAdditionalPropertiesContext(a.Schema))
		}
		names := make([]string, 0, len(s.Properties))
		for name := range s.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			prop := s.Properties[name]
			visit(&prop, p.Child("properties").Key(name), ctx.ChildPropertyContext(&prop, name))
		}
		if it := s.Items; it != nil && it.Schema != nil {
			visit(it.Schema, p.Child("items"), ctx.ChildItemsContext(it.Schema))
		}
	}
	if v := crd.Spec.Validation; v != nil && v.OpenAPIV3Schema != nil {
		visit(v.OpenAPIV3Schema, field.NewPath("spec", "validation", "openAPIV3Schema"), validation.RootCELContext(v.OpenAPIV3Schema))
	}
	for i, v := range crd.Spec.Versions {
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			visit(v.Schema.OpenAPIV3Schema, field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema"), validation.RootCELContext(v.Schema.OpenAPIV3Schema))
		}
	}
	return out
}
