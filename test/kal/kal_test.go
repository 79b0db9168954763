// Package kal holds kubectl crd lint against kube-api-linter (KAL), the
// linter of the Kubernetes API conventions on Go types, as a peer oracle:
// KAL's analyzers (the oracle module beside this file, built here) run
// on the Go API types of real projects, lint runs on the CRDs those
// projects generate from the same types, and each KAL finding that lands
// on a field of a CRD must be a lint finding of the same name there.
package kal

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/lint"
)

// project is a Go module that ships its API types and the CRDs
// controller-gen made of them; its version is the oracle's go.mod's,
// or, where the CRDs are in a module the API does not need, the one
// module names (MODULE@VERSION).
type project struct {
	module   string
	packages []string // the API packages whose kinds have CRDs
	crds     string   // the CRDs' directory in the module
}

var projects = []project{
	{"sigs.k8s.io/gateway-api", []string{"sigs.k8s.io/gateway-api/apis/...", "sigs.k8s.io/gateway-api/apisx/..."}, "config/crd/experimental"},
	{"sigs.k8s.io/network-policy-api", []string{"sigs.k8s.io/network-policy-api/apis/v1alpha2", "sigs.k8s.io/network-policy-api/apis/v1beta1"}, "config/crd/experimental"},
	{"sigs.k8s.io/kueue", []string{"sigs.k8s.io/kueue/apis/kueue/..."}, "config/components/crd/bases"},
	// Two projects the checks were not written against: cluster-api (its
	// API in a module of its own, its CRDs in the main one) and
	// cert-manager.
	{"sigs.k8s.io/cluster-api@v1.14.2", []string{"sigs.k8s.io/cluster-api/api/core/..."}, "core/config/crd/bases"},
	{"github.com/cert-manager/cert-manager", []string{"github.com/cert-manager/cert-manager/pkg/apis/certmanager/v1", "github.com/cert-manager/cert-manager/pkg/apis/acme/v1"}, "deploy/crds"},
}

// TestLintFindsWhatKubeAPILinterFinds runs both and compares, check by
// check: of the KAL findings that land on a field of the CRDs (the
// linters with a check of the same name in lint), at least 90% on
// average over the checks must be lint findings of that name at that
// field. Every lint finding KAL does not have is logged with the reason
// it is lint's alone.
func TestLintFindsWhatKubeAPILinterFinds(t *testing.T) {
	if testing.Short() {
		t.Skip("builds kube-api-linter and reads Go modules from the module proxy")
	}
	oracleDir, err := filepath.Abs("oracle")
	if err != nil {
		t.Fatal(err)
	}
	oracle := filepath.Join(t.TempDir(), "oracle")
	goCmd(t, oracleDir, "build", "-o", oracle, ".")
	c := newComparison()
	for _, p := range projects {
		// go mod download, not go list -m: on a machine whose module cache
		// does not have the module yet, go list -m names no directory.
		var module struct{ Dir string }
		if err := json.Unmarshal([]byte(goCmd(t, oracleDir, "mod", "download", "-json", p.module)), &module); err != nil || module.Dir == "" {
			t.Fatalf("%s: go mod download: %v", p.module, err)
		}
		dir := module.Dir
		var out oracleOutput
		if err := json.Unmarshal([]byte(runIn(t, oracleDir, oracle, p.packages...)), &out); err != nil {
			t.Fatalf("%s: the oracle's output: %v", p.module, err)
		}
		crds := readProject(t, filepath.Join(dir, p.crds))
		if len(crds.versions) == 0 {
			t.Fatalf("%s: no CRDs in %s", p.module, p.crds)
		}
		c.add(dir, out, crds)
	}
	c.report(t)
}

// comparison is KAL's findings and lint's over the projects.
type comparison struct {
	twins   map[string]bool // lint's checks, true where KAL has the name
	tallies map[string]*tally
	// missed are KAL's findings lint does not have; alone lint's KAL
	// does not have, with their reasons; unplaced KAL's findings on no
	// field of the CRDs, of twinFindings in all of the twinned linters.
	missed, alone, unplaced []string
	twinFindings            int
	invisible               map[string]int // KAL's findings a schema does not show, by linter and reason
}

// tally is one linter's KAL findings on fields, and how many lint has.
type tally struct{ kal, found int }

// place is a finding's check and field.
type place struct{ check, crd, version, field string }

func newComparison() *comparison {
	c := &comparison{twins: map[string]bool{}, tallies: map[string]*tally{}, invisible: map[string]int{}}
	for _, check := range lint.Checks {
		c.twins[check.Name] = check.KAL
	}
	return c
}

// add compares one project's findings.
func (c *comparison) add(dir string, out oracleOutput, crds projectCRDs) {
	at := map[place]*lint.Finding{}
	matched := map[*lint.Finding]bool{}
	for i, f := range crds.findings {
		at[place{f.Check, f.CRD, f.Version, f.Field}] = &crds.findings[i]
	}
	for _, k := range out.Findings {
		if !c.twins[k.Linter] {
			continue
		}
		c.twinFindings++
		visible, why := crds.places(k)
		if len(visible) == 0 {
			if why != "" {
				c.invisible[k.Linter+": "+why]++
			} else {
				c.unplaced = append(c.unplaced, fmt.Sprintf("%s: %s:%d: %s", k.Linter, relative(dir, k.File), k.Line, k.Message))
			}
			continue // on no field of the CRDs, or not in what a schema shows
		}
		tl := c.tallies[k.Linter]
		if tl == nil {
			tl = &tally{}
			c.tallies[k.Linter] = tl
		}
		tl.kal++
		hit := false
		// A field's declaration in Go is also its items' and map
		// values': KAL reports on the field what lint reports on its
		// items (a list of strings without maxLength).
		for _, pl := range visible {
			for _, field := range []string{pl.field, pl.field + "[*]"} {
				pl.field = field
				if f := at[pl]; f != nil {
					matched[f], hit = true, true
				}
			}
		}
		if hit {
			tl.found++
		} else {
			c.missed = append(c.missed, fmt.Sprintf("%s: %s:%d (%s %s.%s): %s", k.Linter, relative(dir, k.File), k.Line, visible[0].crd, visible[0].version, visible[0].field, k.Message))
		}
	}
	// Each field of the CRDs, with the Go packages of its declaration.
	declaredIn := map[string]declared{} // CRD/VERSION/FIELD
	for _, d := range out.Fields {
		declaredIn[crds.names[d.Group+"/"+d.Kind]+"/"+d.Version+"/"+d.Field] = d
	}
	for i := range crds.findings {
		if f := &crds.findings[i]; !matched[f] {
			d := declaredIn[f.CRD+"/"+f.Version+"/"+strings.TrimRight(f.Field, "[*]")]
			c.alone = append(c.alone, fmt.Sprintf("%s [%s]: %s:%d %s %s %s", f.Check, reason(f, c.twins, out, d), relative(dir, f.File), f.Line, f.CRD, f.Version, f.Field))
		}
	}
}

// report logs the comparison and fails the test below 90% on average
// over the linters, or when more than 10% of KAL's findings land on no
// field (a mapping that places nothing would otherwise pass).
func (c *comparison) report(t *testing.T) {
	if len(c.tallies) == 0 {
		t.Fatal("KAL has no finding on a field of the CRDs: the mapping of its findings to fields is broken")
	}
	checks := make([]string, 0, len(c.tallies))
	for name := range c.tallies {
		checks = append(checks, name)
	}
	sort.Strings(checks)
	var sum float64
	var table strings.Builder
	for _, name := range checks {
		r := float64(c.tallies[name].found) / float64(c.tallies[name].kal)
		sum += r
		fmt.Fprintf(&table, "%-18s %5d of %5d  %5.1f%%\n", name, c.tallies[name].found, c.tallies[name].kal, 100*r)
	}
	avg := sum / float64(len(checks))
	t.Logf("KAL's findings on fields of the CRDs that lint reports under the same name, by check:\n%saverage over %d checks: %.1f%%", table.String(), len(checks), 100*avg)
	var hidden []string
	for why, n := range c.invisible {
		hidden = append(hidden, fmt.Sprintf("%5d %s", n, why))
	}
	for _, list := range [][]string{hidden, c.missed, c.alone, c.unplaced} {
		sort.Strings(list)
	}
	t.Logf("KAL's findings on fields of the CRDs about what the schema does not show, not counted:\n%s", strings.Join(hidden, "\n"))
	t.Logf("KAL's findings lint does not report (%d):\n%s", len(c.missed), strings.Join(c.missed, "\n"))
	t.Logf("lint's findings KAL does not report, with the reason (%d):\n%s", len(c.alone), strings.Join(c.alone, "\n"))
	t.Logf("KAL's findings on no field of the CRDs (%d of %d):\n%s", len(c.unplaced), c.twinFindings, strings.Join(c.unplaced, "\n"))
	if len(c.unplaced)*10 > c.twinFindings {
		t.Errorf("%d of KAL's %d findings are on no field of the CRDs: more than 10%%, the mapping of Go fields to CRD fields misses", len(c.unplaced), c.twinFindings)
	}
	if avg < 0.9 {
		t.Errorf("lint reports %.1f%% of KAL's findings on average over its checks, below 90%%", 100*avg)
	}
}
