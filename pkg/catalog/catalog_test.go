package catalog

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
