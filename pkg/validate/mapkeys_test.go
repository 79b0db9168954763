package validate

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

// mapKeysInput is the shared fixture: a CRD whose maps are keyed by
// names with dots, slashes and brackets, and objects in block YAML, flow
// YAML and JSON that break a bound under such keys.
func mapKeysInput(t *testing.T) (string, Report) {
	t.Helper()
	files, err := catalog.ReadFiles([]string{"../../test/testdata/mapkeys/crd.yaml"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := "../../test/testdata/mapkeys/objects.yaml"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := documents(context.Background(), manifest.InputOf(path, data), catalog.New(files, nil), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return string(data), r
}

// TestFindingsUnderMapKeys: each finding under a map key with dots,
// slashes or brackets (quoted or not; block, flow, JSON; a map of
// objects; a list-map inside a map) is at the line and column of the key
// its path ends with, not at the map.
func TestFindingsUnderMapKeys(t *testing.T) {
	text, r := mapKeysInput(t)
	// Per document (by name): each field the server names, and the text
	// of the key (as written) it must be placed on.
	want := map[string][][2]string{
		"block": {
			{"spec.limits.example.com/gpu", "example.com/gpu"},
			{"spec.limits.nvidia.com/mig.1g", `"nvidia.com/mig.1g"`},
			{"spec.labels.app.kubernetes.io/name", "app.kubernetes.io/name"},
			{"spec.labels.a[0]", "a[0]"},
			{"spec.pools.gpu.example.com/a100.size", "size"},
			{"spec.zones.eu.example.com/west-1.hosts[1].port", "port: 8080"},
		},
		"flow": {
			{"spec.limits.example.com/gpu", "example.com/gpu"},
			{"spec.limits.nvidia.com/mig.1g", `'nvidia.com/mig.1g'`},
			{"spec.labels.a[0]", `"a[0]"`},
			{"spec.labels.app.kubernetes.io/name", "app.kubernetes.io/name"},
			{"spec.pools.gpu.example.com/a100.size", "size"},
		},
		"json": {
			{"spec.limits.example.com/gpu", `"example.com/gpu"`},
			{"spec.labels.app.kubernetes.io/name", `"app.kubernetes.io/name"`},
			{"spec.zones.eu.example.com/west-1.hosts[0].port", `"port"`},
		},
	}
	if len(r.Results) != 3 {
		t.Fatalf("%d results, want 3", len(r.Results))
	}
	for _, res := range r.Results {
		fields := want[res.Name]
		if len(res.Errors) != len(fields) {
			t.Errorf("%s: %d errors, want %d: %+v", res.Name, len(res.Errors), len(fields), res.Errors)
			continue
		}
		for _, f := range fields {
			line, column := keyAt(text, res.Line, f[1])
			found := false
			for _, p := range res.Errors {
				if p.Field == f[0] {
					found = true
					if p.Line != line || p.Column != column {
						t.Errorf("%s: %s at %d:%d, want %d:%d (on %s)", res.Name, f[0], p.Line, p.Column, line, column, f[1])
					}
				}
			}
			if !found {
				t.Errorf("%s: no finding at %s: %+v", res.Name, f[0], res.Errors)
			}
		}
	}
}

// keyAt is the 1-based line and column of the first needle at or after
// line from (the document's first line).
func keyAt(text string, from int, needle string) (int, int) {
	for i, l := range strings.Split(text, "\n") {
		if i+1 < from {
			continue
		}
		if c := strings.Index(l, needle); c >= 0 {
			return i + 1, c + 1
		}
	}
	return 0, 0
}

// TestMisspeltKind: a kind no CRD defines, in a group CRDs here serve, is
// invalid (the server has no match for it), with the closest kinds; in a
// group nothing here knows, it is skipped with its reason.
func TestMisspeltKind(t *testing.T) {
	r := check(t, "typo.yaml", `apiVersion: stable.example.com/v1
kind: CronTabb
metadata: {name: a}
---
apiVersion: stable.example.com/v1
kind: Widget
metadata: {name: b}
---
apiVersion: other.example.com/v1
kind: CronTabb
metadata: {name: c}
`, Options{})
	got := []string{}
	for _, res := range r.Results {
		msg := res.Reason
		if len(res.Errors) > 0 {
			msg = fmt.Sprintf("%d:%d %s: %s", res.Errors[0].Line, res.Errors[0].Column, res.Errors[0].Field, res.Errors[0].Message)
		}
		got = append(got, string(res.Status)+" "+msg)
	}
	want := []string{
		`invalid 2:1 kind: no matches for kind "CronTabb" in version "stable.example.com/v1"; did you mean CronTab?`,
		`invalid 6:1 kind: no matches for kind "Widget" in version "stable.example.com/v1" (the CustomResourceDefinitions of stable.example.com define CronTab)`,
		`skipped no CustomResourceDefinition for CronTabb.other.example.com`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
