package validate

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	yaml "go.yaml.in/yaml/v3"
)

// renderedSource gives texts a source rendered (as flux: does).
type renderedSource []manifest.Text

func (s renderedSource) Texts(string, bool) ([]manifest.Text, bool, error) { return s, true, nil }

// TestRenderedObjects: an object a source rendered is placed in the file
// it came from (its fields at the file's lines, not the rendered
// text's), goes where the source says when it names no namespace, and
// every format says what rendered it; what could not be rendered is an
// error at its place.
func TestRenderedObjects(t *testing.T) {
	// The file as the user wrote it: replicas at line 8, from a variable.
	var file yaml.Node
	if err := yaml.Unmarshal([]byte("# a comment\n---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: report\nspec:\n  replicas: ${N}\n"), &file); err != nil {
		t.Fatal(err)
	}
	const via = "Kustomization flux-system/apps (clusters/prod/apps.yaml:1)"
	texts := renderedSource{{
		Name: "apps/crontab.yaml",
		Data: []byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: report\nspec:\n  replicas: 30\n"),
		Rendered: &manifest.Rendered{Via: via, Line: 3, Column: 1, Node: file.Content[0], Namespace: "team-a",
			Warnings: []*manifest.Error{{File: "apps/crontab.yaml", Line: 8, Column: 13, Type: "SubstitutionUnset", Msg: "a warning of the source"}}},
	}, {
		Name:     "clusters/prod/apps.yaml",
		Rendered: &manifest.Rendered{Via: via, Line: 9, Column: 3, Err: "Kustomization flux-system/apps: spec.path: not found"},
	}}
	in, err := manifest.OpenPaths([]string{"flux:x"}, false, texts)
	if err != nil {
		t.Fatal(err)
	}
	r, err := documents(context.Background(), in, cronTabs(t), Options{Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Results) != 2 {
		t.Fatalf("%d results", len(r.Results))
	}
	res := r.Results[0]
	if res.File != "apps/crontab.yaml" || res.Line != 3 || res.Source != via || res.Status != Invalid {
		t.Errorf("result %s:%d from %q: %s", res.File, res.Line, res.Source, res.Status)
	}
	if len(res.Errors) != 1 || res.Errors[0].Field != "spec.replicas" || res.Errors[0].Line != 8 {
		t.Errorf("errors %+v, want spec.replicas at the file's line 8", res.Errors)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Type != "SubstitutionUnset" || res.Warnings[0].Line != 8 {
		t.Errorf("warnings %+v, want the source's at line 8", res.Warnings)
	}
	failed := r.Results[1]
	if failed.Status != Errored || failed.Line != 9 || failed.Source != via || !strings.Contains(failed.Reason, "spec.path: not found") {
		t.Errorf("the failed render: %+v", failed)
	}

	// A valid object that names no namespace lands in the source's.
	texts[0].Data = []byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: report\nspec:\n  replicas: 3\n")
	in, _ = manifest.OpenPaths([]string{"flux:x"}, false, texts[:1])
	r, err = documents(context.Background(), in, cronTabs(t), Options{Keep: true, Namespace: "elsewhere"})
	if err != nil {
		t.Fatal(err)
	}
	if obj := r.Results[0].Object; obj == nil || obj["metadata"].(map[string]any)["namespace"] != "team-a" {
		t.Errorf("stored %v, want it in team-a", obj)
	}

	r.Results = append(r.Results, res, failed)
	for format, want := range map[string][]string{
		"text":   {via + " -> apps/crontab.yaml:3: CronTab/report\napps/crontab.yaml:8:3: spec.replicas:", "clusters/prod/apps.yaml:9:3: error: Kustomization flux-system/apps: spec.path"},
		"github": {"file=apps/crontab.yaml,line=8,col=3,title=FieldValueInvalid::spec.replicas: Invalid value: 30: spec.replicas in body should be less than or equal to 10 (rendered by " + via + ")"},
		"sarif":  {"(rendered by " + via + ")"},
		"junit":  {"CronTab/report (line 3) (rendered by " + via + ")"},
		"json":   {`"source": "` + via + `"`},
	} {
		var out, errw bytes.Buffer
		if err := r.WriteReport(&out, &errw, format, "test", false); err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("%s: no %q in\n%s", format, w, out.String())
			}
		}
	}
}
