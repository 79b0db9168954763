package validate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
)

// BenchmarkAdmission validates 2,000 custom resources in one stream
// without admission policies and through the 22 policies of the
// differential test (test/testdata/policies), started once per run as
// validate --policies starts them: the two sub-benchmarks' ratio is what
// the policies cost.
func BenchmarkAdmission(b *testing.B) {
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "---\napiVersion: admission.example.com/v1\nkind: Cogwheel\nmetadata:\n  name: c%d\n  namespace: pt-dev\n  labels: {team: a}\nspec:\n  replicas: %d\n  image: registry.example.com/app:%d\n  size: s\n", i, 1+i%3, i)
	}
	data := []byte(sb.String())
	files, err := catalog.ReadFiles([]string{"../../test/testdata/policies/crds.yaml"}, nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	env, err := NewEnvironment(Setting{Catalog: catalog.New(files, nil)})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, withPolicies := range []bool{false, true} {
		b.Run(fmt.Sprintf("policies=%v", withPolicies), func(b *testing.B) {
			for range b.N {
				opts := env.Options
				if withPolicies {
					a, err := env.SetUpAdmission(ctx, AdmissionSetting{Policies: []string{"../../test/testdata/policies/policies.yaml"}, User: policies.User()})
					if err != nil {
						b.Fatal(err)
					}
					opts.Admission = a.Chain
				}
				r, err := env.Check(ctx, manifest.InputOf("bench.yaml", data), opts)
				opts.Admission.Close()
				if err != nil || r.Summary.Valid != 2000 {
					b.Fatalf("summary %+v, %v", r.Summary, err)
				}
			}
		})
	}
}
