package catalog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

func testdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "test", "testdata"}, parts...)...)
}

func offline(t *testing.T, warnings *[]string) *Catalog {
	t.Helper()
	files, err := ReadFiles([]string{testdata("crds")}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return New(files, func(w string) { *warnings = append(*warnings, w) })
}

func TestResolveOffline(t *testing.T) {
	tests := []struct {
		arg, want, warning string
	}{
		{"wd", "alpha.example.com/v1, Resource=widgets", `short name "wd" could also match lower priority resource widgets.zeta.example.com`},
		{"zw", "zeta.example.com/v1, Resource=widgets", ""},
		{"Widget.v1beta1.alpha.example.com", "alpha.example.com/v1beta1, Resource=widgets", "alpha.example.com/v1beta1 Widget is deprecated; use alpha.example.com/v1 Widget"},
		{"sprockets", "beta.example.com/v1alpha1, Resource=sprockets", "sprockets are going away; move to gizmos"},
		{"dh", "gamma.example.com/v1, Resource=doohickeys", ""},
		{"gizmo", "beta.example.com/v1beta2, Resource=gizmos", ""},
	}
	for _, tt := range tests {
		var warnings []string
		res, err := offline(t, &warnings).Resolve(context.Background(), tt.arg)
		if err != nil || len(res) != 1 || res[0].Mapping.Resource.String() != tt.want {
			t.Errorf("%s: %v %v, want %s", tt.arg, res, err, tt.want)
			continue
		}
		if got := strings.Join(warnings, "|"); got != tt.warning {
			t.Errorf("%s: warnings %q, want %q", tt.arg, got, tt.warning)
		}
	}
}

func TestResolveCategoryAndErrors(t *testing.T) {
	var warnings []string
	c := offline(t, &warnings)
	res, err := c.Resolve(context.Background(), "toys")
	if err != nil || len(res) != 5 {
		t.Errorf("toys: %d resources, %v", len(res), err)
	}
	_, err = c.Resolve(context.Background(), "widgit")
	want := "the server doesn't have a resource type \"widgit\"\nDid you mean widgets.alpha.example.com or widgets.zeta.example.com?"
	if err == nil || err.Error() != want {
		t.Errorf("widgit: %v", err)
	}
	if res, err := c.Resolve(context.Background(), "all"); err != nil || len(res) != 1 {
		t.Errorf("all: %v %v", res, err)
	}
}

func TestReadFilesErrors(t *testing.T) {
	dir := t.TempDir()
	crd, err := os.ReadFile(testdata("crds", "gizmos.beta.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.yaml", "b.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), crd, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = ReadFiles([]string{dir}, nil, nil)
	want := `CustomResourceDefinition "gizmos.beta.example.com" is defined twice: at ` + filepath.Join(dir, "a.yaml") + `:2 and at ` + filepath.Join(dir, "b.yaml") + `:2`
	if err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}

	files, err := ReadFiles([]string{testdata("crds", "doohickeys.gamma.v1beta1.yaml")}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	crds, _ := files.List(context.Background())
	if len(crds) != 1 || crds[0].Spec.Versions[0].Schema == nil || crds[0].Spec.Names.Singular != "doohickey" || crds[0].Origin == "" {
		t.Errorf("v1beta1 CRD not converted and defaulted as the server does: %+v", crds)
	}
}

// TestListWhereIsListFiltered: ListWhere answers what List filtered by the
// same question answers, in the same order, and Outlines holds every CRD
// without its schemas.
func TestListWhereIsListFiltered(t *testing.T) {
	var warnings []string
	cat := offline(t, &warnings)
	ctx := context.Background()
	all, err := cat.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	outlines, err := cat.Outlines(ctx)
	if err != nil || len(outlines) != len(all) {
		t.Fatalf("%d outlines (%v) for %d CRDs", len(outlines), err, len(all))
	}
	for i, o := range outlines {
		if o.Name != all[i].Name || o.Spec.Names.Kind != all[i].Spec.Names.Kind {
			t.Errorf("outline %d is %s (%s), the CRD %s (%s)", i, o.Name, o.Spec.Names.Kind, all[i].Name, all[i].Spec.Names.Kind)
		}
		for _, v := range o.Spec.Versions {
			if v.Schema != nil {
				t.Errorf("outline %s holds the schema of %s", o.Name, v.Name)
			}
		}
	}
	keeps := map[string]func(*apiextensionsv1.CustomResourceDefinition) bool{
		"none":      func(*apiextensionsv1.CustomResourceDefinition) bool { return false },
		"one group": func(c *apiextensionsv1.CustomResourceDefinition) bool { return c.Spec.Group == "alpha.example.com" },
		"a kind":    func(c *apiextensionsv1.CustomResourceDefinition) bool { return c.Spec.Names.Kind == "Widget" },
		"all":       func(*apiextensionsv1.CustomResourceDefinition) bool { return true },
	}
	for name, keep := range keeps {
		var want []*CRD
		for _, c := range all {
			if keep(c.CustomResourceDefinition) {
				want = append(want, c)
			}
		}
		got, err := cat.ListWhere(ctx, keep)
		if err != nil || len(got) != len(want) {
			t.Errorf("%s: %d CRDs (%v), want %d", name, len(got), err, len(want))
			continue
		}
		for i := range got {
			if !apiequality.Semantic.DeepEqual(got[i].CustomResourceDefinition, want[i].CustomResourceDefinition) || got[i].Origin != want[i].Origin {
				t.Errorf("%s: CRD %d is %s, want %s as List gives it", name, i, got[i].Name, want[i].Name)
			}
		}
	}
}
