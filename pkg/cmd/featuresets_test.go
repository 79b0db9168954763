package cmd

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// gadgetCRD is a CRD file of the feature set set: with beta, it has the
// gated field spec.beta.
func gadgetCRD(set string, beta bool) string {
	field := ""
	if beta {
		field = "\n              beta: {type: string}"
	}
	return `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.features.example.com
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
    release.openshift.io/feature-set: ` + set + `
spec:
  group: features.example.com
  scope: Cluster
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              name: {type: string}` + field + "\n"
}

func featureGate(set string, enabled, disabled string) string {
	return `apiVersion: config.openshift.io/v1
kind: FeatureGate
metadata:
  name: cluster
  annotations:
    include.release.openshift.io/self-managed-high-availability: "true"
    release.openshift.io/feature-set: ` + set + `
spec: {}
status:
  featureGates:
  - version: ""
    enabled: [` + enabled + `]
    disabled: [` + disabled + `]
`
}

// gadgetSuite is a suite whose one case holds only where spec.beta is
// kept (keep) or pruned.
func gadgetSuite(name, gates string, keep bool) string {
	expected := "apiVersion: features.example.com/v1\n      kind: Gadget\n      spec: {name: a}"
	if keep {
		expected = "apiVersion: features.example.com/v1\n      kind: Gadget\n      spec: {name: a, beta: b}"
	}
	return `apiVersion: apiextensions.k8s.io/v1
name: "` + name + `"
crdName: gadgets.features.example.com
` + gates + `
tests:
  onCreate:
  - name: beta
    initial: |
      apiVersion: features.example.com/v1
      kind: Gadget
      spec: {name: a, beta: b}
    expected: |
      ` + expected + "\n"
}

// TestSuitesPickTheirFeatureSetsFile: of a CRD's files per feature set,
// a suite without gates runs against Default's, one with gates against a
// file whose feature set enables them (read from FeatureGate objects),
// CustomNoUpgrade's when none are given and no gate must be off; the
// file used is said; no file that fits is an error at the suite's
// crdName. Each expectation holds only with the file named.
func TestSuitesPickTheirFeatureSetsFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	crds := filepath.Dir(write("crds/gadgets-Default.crd.yaml", gadgetCRD("Default", false)))
	write("crds/gadgets-TechPreviewNoUpgrade.crd.yaml", gadgetCRD("TechPreviewNoUpgrade", true))
	write("crds/gadgets-CustomNoUpgrade.crd.yaml", gadgetCRD("CustomNoUpgrade", true))
	gates := filepath.Dir(write("featuregates/default.yaml", featureGate("Default", "", "{name: Beta}")))
	write("featuregates/techpreview.yaml", featureGate("TechPreviewNoUpgrade", "{name: Beta}", ""))

	for _, tc := range []struct {
		name, suite string
		gates       bool
		want        []string
		err         string
	}{
		{"ungated", gadgetSuite("ungated", "", false), true,
			[]string{`suite "ungated" ran against ` + filepath.Join(crds, "gadgets-Default.crd.yaml") + ":1 (Default)", "1 of 1 case passed"}, ""},
		{"gated", gadgetSuite("gated", "featureGates: [Beta]", true), true,
			[]string{"gadgets-TechPreviewNoUpgrade.crd.yaml:1 (TechPreviewNoUpgrade)", "1 of 1 case passed"}, ""},
		{"gated singular", gadgetSuite("singular", "featureGate: Beta", true), true,
			[]string{"gadgets-TechPreviewNoUpgrade.crd.yaml:1 (TechPreviewNoUpgrade)", "1 of 1 case passed"}, ""},
		{"gate off", gadgetSuite("off", "featureGates: [-Beta]", false), true,
			[]string{"gadgets-Default.crd.yaml:1 (Default)", "1 of 1 case passed"}, ""},
		{"no FeatureGates", gadgetSuite("custom", "featureGates: [Beta]", true), false,
			[]string{"gadgets-CustomNoUpgrade.crd.yaml:1 (CustomNoUpgrade)", "1 of 1 case passed"}, ""},
		{"nothing fits", gadgetSuite("none", "featureGates: [-Beta]", false), false,
			[]string{"crdName gadgets.features.example.com: no file of it fits featureGates -Beta", "give openshift/api's payload-manifests/featuregates with --feature-gates"}, "exit 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			suite := write(strings.ReplaceAll(tc.name, " ", "-")+".yaml", tc.suite)
			f, out, _ := testFactory(t)
			args := []string{"test", suite, "--crds", crds}
			if tc.gates {
				args = append(args, "--feature-gates", gates)
			}
			err := execute(f, args...)
			var exit *ExitError
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("%v\n%s", err, out)
			case tc.err != "" && (!errors.As(err, &exit) || exit.Code != 2):
				t.Fatalf("error %v, want %s\n%s", err, tc.err, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("output:\n%s\nwant: %s", out, w)
				}
			}
		})
	}
}

// TestOneFeatureSetDefinedTwice: two files of one CRD for the same
// feature set (and cluster profiles) are one CRD defined twice.
func TestOneFeatureSetDefinedTwice(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a.yaml", "b.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(gadgetCRD("Default", false)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, _, _ := testFactory(t)
	err := execute(f, "get", "crd", "--crds", dir)
	if err == nil || !strings.Contains(err.Error(), `CustomResourceDefinition "gadgets.features.example.com" is defined twice`) {
		t.Errorf("got %v", err)
	}
}
