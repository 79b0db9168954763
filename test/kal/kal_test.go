// Package kal holds kubectl crd lint against kube-api-linter (KAL), the
// linter of the Kubernetes API conventions on Go types, as a peer oracle:
// KAL's analyzers (the oracle module beside this file, built here) run
// on the Go API types of real projects, lint runs on the CRDs those
// projects generate from the same types, and each KAL finding that lands
// on a field of a CRD must be a lint finding of the same name there.
package kal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/lint"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// project is a Go module that ships its API types and the CRDs
// controller-gen made of them; its version is the oracle's go.mod's.
type project struct {
	module   string
	packages []string // the API packages whose kinds have CRDs
	crds     string   // the CRDs' directory in the module
}

var projects = []project{
	{"sigs.k8s.io/gateway-api", []string{"sigs.k8s.io/gateway-api/apis/...", "sigs.k8s.io/gateway-api/apisx/..."}, "config/crd/experimental"},
	{"sigs.k8s.io/network-policy-api", []string{"sigs.k8s.io/network-policy-api/apis/v1alpha2", "sigs.k8s.io/network-policy-api/apis/v1beta1"}, "config/crd/experimental"},
	{"sigs.k8s.io/kueue", []string{"sigs.k8s.io/kueue/apis/kueue/..."}, "config/components/crd/bases"},
}

// oracleOutput is what the oracle writes (oracle/main.go).
type oracleOutput struct {
	Linters, Packages []string
	Findings          []kalFinding
	Fields            []declared
}

// declared is a field of a kind and the Go packages of the field and of
// its type.
type declared struct {
	Group, Version, Kind, Field, Package, TypePackage string
	Markers                                           []string
}

type kalFinding struct {
	Linter, Message, File string
	Line                  int
	On                    string
	Fields                []struct{ Group, Version, Kind, Field string }
}

// version is one CRD version's key and schema.
type version struct {
	crd, name string
	schema    *apiextensionsv1.JSONSchemaProps
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
	twins := map[string]bool{}
	for _, c := range lint.Checks {
		twins[c.Name] = c.KAL
	}

	type tally struct{ kal, found int }
	tallies := map[string]*tally{}
	var missed, alone, unplaced []string
	twinFindings := 0             // KAL's findings of the linters lint has a check of
	invisible := map[string]int{} // KAL's findings a schema does not show, by linter and reason
	for _, p := range projects {
		dir := strings.TrimSpace(goCmd(t, oracleDir, "list", "-m", "-f", "{{.Dir}}", p.module))
		var out oracleOutput
		if err := json.Unmarshal([]byte(runIn(t, oracleDir, oracle, p.packages...)), &out); err != nil {
			t.Fatalf("%s: the oracle's output: %v", p.module, err)
		}
		versions, ours := lintProject(t, filepath.Join(dir, p.crds))
		if len(versions) == 0 {
			t.Fatalf("%s: no CRDs in %s", p.module, p.crds)
		}
		byVersion := map[string]version{} // CRD/VERSION
		for _, v := range versions {
			byVersion[v.crd] = v
		}
		// lint's findings by check and place; those KAL has are marked.
		type place struct{ check, crd, version, field string }
		at := map[place]*lint.Finding{}
		matched := map[*lint.Finding]bool{}
		for i, f := range ours {
			at[place{f.Check, f.CRD, f.Version, f.Field}] = &ours[i]
		}
		crdOf := crdNames(t, filepath.Join(dir, p.crds))
		for _, k := range out.Findings {
			if !twins[k.Linter] {
				continue
			}
			var visible []place
			why := ""
			for _, u := range k.Fields {
				crd := crdOf[u.Group+"/"+u.Kind]
				v, ok := byVersion[crd+"/"+u.Version]
				if !ok {
					continue
				}
				field, parent := lookup(v.schema, u.Field)
				if field == nil {
					continue
				}
				if why = goOnly(k, field, parent, u.Field); why == "" {
					visible = append(visible, place{k.Linter, crd, u.Version, u.Field})
				}
			}
			twinFindings++
			if len(visible) == 0 {
				if why != "" {
					invisible[k.Linter+": "+why]++
				} else {
					unplaced = append(unplaced, fmt.Sprintf("%s: %s:%d: %s", k.Linter, relative(dir, k.File), k.Line, k.Message))
				}
				continue // on no field of the CRDs, or not in what a schema shows
			}
			tl := tallies[k.Linter]
			if tl == nil {
				tl = &tally{}
				tallies[k.Linter] = tl
			}
			tl.kal++
			hit := false
			// A field's declaration in Go is also its items' and map
			// values': KAL reports on the field what lint reports on
			// its items (a list of strings without maxLength).
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
				missed = append(missed, fmt.Sprintf("%s: %s:%d (%s %s.%s): %s", k.Linter, relative(dir, k.File), k.Line, visible[0].crd, visible[0].version, visible[0].field, k.Message))
			}
		}
		// Each field of the CRDs, with the Go package that declares it.
		declaredIn := map[string]declared{} // CRD/VERSION/FIELD
		for _, d := range out.Fields {
			declaredIn[crdOf[d.Group+"/"+d.Kind]+"/"+d.Version+"/"+d.Field] = d
		}
		for i := range ours {
			f := &ours[i]
			if !matched[f] {
				d := declaredIn[f.CRD+"/"+f.Version+"/"+strings.TrimRight(f.Field, "[*]")]
				alone = append(alone, fmt.Sprintf("%s [%s]: %s:%d %s %s %s", f.Check, reason(f, twins, out, d), relative(dir, f.File), f.Line, f.CRD, f.Version, f.Field))
			}
		}
	}

	checks := make([]string, 0, len(tallies))
	for c := range tallies {
		checks = append(checks, c)
	}
	sort.Strings(checks)
	var sum float64
	var table strings.Builder
	for _, c := range checks {
		r := float64(tallies[c].found) / float64(tallies[c].kal)
		sum += r
		fmt.Fprintf(&table, "%-18s %5d of %5d  %5.1f%%\n", c, tallies[c].found, tallies[c].kal, 100*r)
	}
	if len(checks) == 0 {
		t.Fatal("KAL has no finding on a field of the CRDs: the mapping of its findings to fields is broken")
	}
	avg := sum / float64(len(checks))
	t.Logf("KAL's findings on fields of the CRDs that lint reports under the same name, by check:\n%saverage over %d checks: %.1f%%", table.String(), len(checks), 100*avg)
	sort.Strings(missed)
	sort.Strings(alone)
	var hidden []string
	for why, n := range invisible {
		hidden = append(hidden, fmt.Sprintf("%5d %s", n, why))
	}
	sort.Strings(hidden)
	t.Logf("KAL's findings on fields of the CRDs about what the schema does not show, not counted:\n%s", strings.Join(hidden, "\n"))
	t.Logf("KAL's findings lint does not report (%d):\n%s", len(missed), strings.Join(missed, "\n"))
	t.Logf("lint's findings KAL does not report, with the reason (%d):\n%s", len(alone), strings.Join(alone, "\n"))
	// A finding on no field of the CRDs is on a type no kind uses, or
	// on what the mapping of Go to fields cannot place: the share that
	// is neither bounds how much of KAL the comparison leaves out.
	t.Logf("KAL's findings on no field of the CRDs (%d of %d):\n%s", len(unplaced), twinFindings, strings.Join(unplaced, "\n"))
	if len(unplaced)*10 > twinFindings {
		t.Errorf("%d of KAL's %d findings are on no field of the CRDs: more than 10%%, the mapping of Go fields to CRD fields misses", len(unplaced), twinFindings)
	}
	if avg < 0.9 {
		t.Errorf("lint reports %.1f%% of KAL's findings on average over its checks, below 90%%", 100*avg)
	}
}

// goOnly says why a KAL finding on a field is about what only the Go
// source holds, which the CRD made of it does not show (""; it does
// show): struct tags, the order of fields, strategic-merge-patch markers,
// and embedded structs KAL does not look into. field is the field's
// schema, parent its parent's (nil at the root).
func goOnly(k kalFinding, field, parent *apiextensionsv1.JSONSchemaProps, path string) string {
	switch k.Linter {
	case "conditions":
		switch {
		case strings.Contains(k.Message, "has incorrect tags"):
			return "struct tags (patchStrategy, protobuf)"
		case strings.Contains(k.Message, "must be the first field"):
			return "the order of Go fields"
		}
		if _, list, ok := strings.Cut(k.Message, "missing the following markers: "); ok {
			for _, m := range strings.Split(list, ", ") {
				switch m {
				case "patchStrategy=merge", "patchMergeKey=type":
				case "optional":
					if parent != nil && slices.Contains(parent.Required, lastName(path)) {
						return ""
					}
				default:
					return ""
				}
			}
			return "strategic-merge-patch markers, or +optional on a field the schema has optional"
		}
	case "arrayofstruct":
		if field.Items != nil && field.Items.Schema != nil && len(field.Items.Schema.Required) > 0 {
			return "the items require a field of an embedded struct, which KAL does not look into"
		}
	case "minlength":
		if strings.Contains(k.Message, "must have either a required field") && (len(field.Required) > 0 || field.Items != nil && field.Items.Schema != nil && len(field.Items.Schema.Required) > 0) {
			return "the object requires a field of an embedded struct, which KAL does not look into"
		}
	case "nomaps":
		if v := field.AdditionalProperties; v != nil && v.Schema != nil && v.Schema.Type == "string" {
			return "a map of strings to strings (which KAL allows) whose key or value type is of another package, which KAL does not resolve"
		}
	case "statusoptional":
		if parent != nil && !slices.Contains(parent.Required, lastName(path)) {
			return "+optional missing on a field the schema has optional (omitempty)"
		}
	}
	return ""
}

func lastName(path string) string {
	return path[strings.LastIndex(path, ".")+1:]
}

// reason is why a lint finding has no KAL finding: the class of each
// lint finding KAL does not report.
// d is the finding's field in Go (zero: not a Go field, or the kind
// itself).
func reason(f *lint.Finding, twins map[string]bool, out oracleOutput, d declared) string {
	switch {
	case !twins[f.Check]:
		return "schema only: KAL has no linter of this check"
	case !slices.Contains(out.Linters, f.Check):
		return "KAL's linter did not run"
	case d.Package != "" && !slices.Contains(out.Packages, d.Package):
		return "a field of a type of another module (" + d.Package + "): KAL checks the packages it is given only"
	case d.TypePackage != "" && d.TypePackage != d.Package:
		return "a field whose type is declared in another package (" + d.TypePackage + "): KAL does not read that package's markers"
	case d.Field == "" && f.Field != "":
		return "a field the Go types do not have: the CRD was made from other versions of the types or their dependencies"
	case f.Check == "defaultorrequired" && !slices.ContainsFunc(d.Markers, func(m string) bool {
		return m == "+required" || m == "+kubebuilder:validation:Required" || m == "+k8s:required"
	}):
		return "required in the schema for want of omitempty, with no +required marker: KAL's defaultorrequired compares markers"
	case f.Check == "maxlength" && strings.Contains(f.Message, "map"):
		return "a map: KAL's maxlength bounds strings and lists"
	case f.Check == "maxlength" && strings.HasSuffix(f.Field, "[*]") && d.TypePackage == "":
		return "a map's string values: KAL's maxlength bounds strings and lists"
	}
	return "the check differs: " + f.Check
}

// lintProject lints every CRD of a directory under the kube profile,
// every check on.
func lintProject(t *testing.T, dir string) ([]version, []lint.Finding) {
	crds := readCRDs(t, dir)
	var checks []string
	for _, c := range lint.Checks {
		checks = append(checks, c.Name+"=info")
	}
	found, err := lint.Lint(crds, lint.Options{Profile: "kube", Checks: checks})
	if err != nil {
		t.Fatal(err)
	}
	var versions []version
	for _, c := range crds {
		for _, v := range c.Spec.Versions {
			if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
				versions = append(versions, version{c.Name + "/" + v.Name, v.Name, v.Schema.OpenAPIV3Schema})
			}
		}
	}
	return versions, found
}

// crdNames are the CRDs' names by group/kind.
func crdNames(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	for _, c := range readCRDs(t, dir) {
		out[c.Spec.Group+"/"+c.Spec.Names.Kind] = c.Name
	}
	return out
}

func readCRDs(t *testing.T, dir string) []catalog.InputCRD {
	t.Helper()
	docs, err := manifest.ReadPaths([]string{dir}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	crds, _, err := catalog.Split(docs)
	if err != nil {
		t.Fatal(err)
	}
	return crds
}

// lookup finds a field path (spec.items[*].name) in a schema: the
// field's schema and its parent object's (nil, nil: no such field). A
// property name may hold dots: at each step the longest name the rest
// starts with is taken.
func lookup(s *apiextensionsv1.JSONSchemaProps, path string) (field, parent *apiextensionsv1.JSONSchemaProps) {
	for path != "" {
		path = strings.TrimPrefix(path, ".")
		if rest, ok := strings.CutPrefix(path, "[*]"); ok {
			switch {
			case s.Items != nil && s.Items.Schema != nil:
				s = s.Items.Schema
			case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
				s = s.AdditionalProperties.Schema
			default:
				return nil, nil
			}
			parent, path = nil, rest
			continue
		}
		best := ""
		for k := range s.Properties {
			if strings.HasPrefix(path, k) && len(k) > len(best) && (len(path) == len(k) || path[len(k)] == '.' || path[len(k)] == '[') {
				best = k
			}
		}
		if best == "" {
			return nil, nil
		}
		next := s.Properties[best]
		parent, s, path = s, &next, path[len(best):]
	}
	return s, parent
}

func goCmd(t *testing.T, dir string, args ...string) string {
	return runIn(t, dir, "go", args...)
}

func runIn(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The oracle module is its own: no workspace of the project's.
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

func relative(dir, file string) string {
	if r, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return file
}
