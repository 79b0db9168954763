package lint

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
)

func readCRDs(t testing.TB, path string) []catalog.InputCRD {
	t.Helper()
	docs, err := manifest.ReadPaths([]string{path}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	crds, _, err := catalog.Split(docs)
	if err != nil {
		t.Fatal(err)
	}
	return crds
}

// TestEachCheckAtItsField: in testdata/conventions.yaml each field breaks
// the one convention its description names (and the one marked clean
// none): under the kube profile (every check on), each check is found at
// the line of that field's key, and nothing else is found.
func TestEachCheckAtItsField(t *testing.T) {
	path := "testdata/conventions.yaml"
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(text), "\n")
	findings, err := Lint(readCRDs(t, path), Options{Profile: "kube"})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range findings {
		got = append(got, fmt.Sprintf("%s %d", f.Check, f.Line))
	}
	// Each field described by a check name: that check, at the field's
	// line; the version-wide findings at their own places.
	var want []string
	for i, l := range lines {
		if _, name, ok := strings.Cut(l, `description: "`); ok {
			name, _, _ = strings.Cut(name, `"`)
			if name != "clean" {
				want = append(want, fmt.Sprintf("%s %d", name, i+1-descriptionOffset(lines, i)))
			}
		}
	}
	// v2's status.conditions is both a required status field and
	// required conditions.
	want = append(want,
		fmt.Sprintf("printercolumn-path %d", lineOf(lines, "jsonPath: .spec.colour")),
		fmt.Sprintf("deprecation-warning %d", lineOf(lines, "- name: v1")),
		fmt.Sprintf("conditions %d", lastLineOf(lines, "conditions:")))
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, c := range Checks {
		if !slices.ContainsFunc(findings, func(f Finding) bool { return f.Check == c.Name }) {
			t.Errorf("check %s is not exercised by the test data", c.Name)
		}
	}
}

// descriptionOffset is how many lines above line i the field's key is:
// 0 for a one-line field, else the distance to the key above it.
func descriptionOffset(lines []string, i int) int {
	if strings.Contains(lines[i], "{") {
		return 0
	}
	indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
	for j := i - 1; j >= 0; j-- {
		if len(lines[j])-len(strings.TrimLeft(lines[j], " ")) < indent {
			return i - j
		}
	}
	return 0
}

func lastLineOf(lines []string, s string) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], s) {
			return i + 1
		}
	}
	return 0
}

func lineOf(lines []string, s string) int {
	for i, l := range lines {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	return 0
}

// TestProfilesAndOverrides: the crd profile leaves nobools and minlength
// out; --check changes a severity, and an unknown name or severity is
// an error; only error findings fail a run.
func TestProfilesAndOverrides(t *testing.T) {
	crds := readCRDs(t, "testdata/conventions.yaml")
	checks := func(opts Options) map[string]report.Severity {
		findings, err := Lint(crds, opts)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]report.Severity{}
		for _, f := range findings {
			out[f.Check] = f.Severity
		}
		return out
	}
	crd := checks(Options{})
	if _, ok := crd["nobools"]; ok {
		t.Error("the crd profile reports nobools")
	}
	if crd["nofloats"] != report.Warning || crd["enum-value"] != report.Error {
		t.Errorf("crd profile severities: %v", crd)
	}
	if got := checks(Options{Checks: []string{"nobools=error", "nofloats=ignore"}}); got["nobools"] != report.Error || got["nofloats"] != "" {
		t.Errorf("overrides: %v", got)
	}
	for _, bad := range []Options{{Checks: []string{"nobool=error"}}, {Checks: []string{"nobools=fatal"}}, {Profile: "strict"}} {
		if err := CheckOptions(bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	clean, err := Lint(crds, Options{Checks: []string{"enum-value=warning", "default-value=warning", "listmap-key=warning"}})
	if err != nil || Failed(clean) {
		t.Errorf("no error findings, yet failed: %v", err)
	}
}

// TestColumnPaths: the JSONPaths printer columns use.
func TestColumnPaths(t *testing.T) {
	for path, want := range map[string][]string{
		".spec.replicas": {"spec", "replicas"},
		".status.conditions[?(@.type==\"Ready\")].status": {"status", "conditions", "[]", "status"},
		".metadata.labels['app']":                         {"metadata", "labels", "app"},
		"{.spec.items[0].name}":                           {"spec", "items", "[]", "name"},
		"..name":                                          nil,
	} {
		if got := jsonPathSteps(path); !slices.Equal(got, want) {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
}
