package crdtest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/joshdk/go-junit"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

func runner(t *testing.T) *Runner {
	t.Helper()
	files, err := catalog.ReadFiles([]string{"../../examples/crds"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return &Runner{Catalog: catalog.New(files, nil)}
}

// TestBadInput: each suite or case that cannot run is said with its file
// and line, and the others still run.
func TestBadInput(t *testing.T) {
	suites, err := Read([]string{"testdata/bad.testsuite.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	results := runner(t).Run(context.Background(), suites)
	var got []string
	for _, r := range results {
		got = append(got, fmt.Sprintf("%s %s:%d:%d %s: %s", r.Status, r.File, r.Line, r.Column, r.Name, r.Message))
	}
	want := []string{
		// A suite that cannot run is said once, at the place of what is
		// wrong, without its position again in the message.
		"error testdata/bad.testsuite.yaml:3:0 : crdName: Required value: the suite names the CRD under test",
		"error testdata/bad.testsuite.yaml:10:0 : crdName: no CustomResourceDefinition nosuch.example.com among the 1 given",
		`error testdata/bad.testsuite.yaml:22:5 : unknown field "tests.onCreate[0].expectedErorr": not a field of the suite format`,
		"error testdata/bad.testsuite.yaml:28:0 an initial object that is not YAML: testdata/bad.testsuite.yaml:28: initial: not YAML:",
		"error testdata/bad.testsuite.yaml:30:0 an expected object that is not an object: testdata/bad.testsuite.yaml:30: expected: not an object: the text is the scalar \"just words\"",
		"passed testdata/bad.testsuite.yaml:33:0 a good case beside them: ",
		"error testdata/bad.testsuite.yaml:36:0 a patch that does not apply: testdata/bad.testsuite.yaml:36: initialCRDPatches: does not apply to crontabs.stable.example.com:",
		"failed testdata/bad.testsuite.yaml:41:0 a patch that makes the CRD invalid: updating the CustomResourceDefinition with initialCRDPatches: CustomResourceDefinition.apiextensions.k8s.io \"crontabs.stable.example.com\" is invalid:",
		// Values of the wrong type said in the format's terms at their
		// key, not as Go types; a key given twice hides a case.
		`error testdata/bad.testsuite.yaml:54:5 : tests.onCreate[1].initial: a mapping, where the suite format wants a string (an object is written as text: "initial: |"`,
		"error testdata/bad.testsuite.yaml:59:1 : tests: a list, where the suite format wants a mapping",
		`error testdata/bad.testsuite.yaml:68:3 : duplicate key "onCreate" (first at line 65)`,
	}
	if len(got) != len(want) {
		t.Fatalf("%d results, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("result %d:\n%s\nwant it to start with\n%s", i, got[i], want[i])
		}
	}
	// A suite that cannot run counts each of its cases as one that
	// could not run (the misspelt key's suite has two).
	s := Summarize(results, GivenBy(suites))
	if s != (Summary{Passed: 1, Failed: 1, Errors: 10, Suites: 7, CasesGiven: 12, SuitesGiven: 7}) {
		t.Errorf("summary %+v", s)
	}
}

// TestJUnitReadByAConsumer: the JUnit output as a JUnit reader (the
// go-junit library CI tools use) reads it: a suite per file, a case per
// case with its name, class and verdict.
func TestJUnitReadByAConsumer(t *testing.T) {
	suites, err := Read([]string{"../../examples/tests", "testdata/bad.testsuite.yaml"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	results := runner(t).Run(context.Background(), suites)
	var out bytes.Buffer
	if err := Write(&out, "junit", Report{Cases: results, Summary: Summarize(results, GivenBy(suites))}, suites); err != nil {
		t.Fatal(err)
	}
	read, err := junit.Ingest(out.Bytes())
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(read) != 2 || read[0].Name != "../../examples/tests/crontab.testsuite.yaml" {
		t.Fatalf("%d suites: %+v", len(read), read)
	}
	if read[0].Totals.Tests != 10 || read[0].Totals.Passed != 10 || read[1].Totals.Failed != 1 || read[1].Totals.Error != 9 {
		t.Errorf("totals %+v and %+v", read[0].Totals, read[1].Totals)
	}
	c := read[0].Tests[0]
	if c.Name != "defaults fill what is left out" || c.Classname != "../../examples/tests/crontab.testsuite.yaml/onCreate" || c.Status != junit.StatusPassed {
		t.Errorf("first case %+v", c)
	}
}

// TestTextReport: the failing cases at their place, the diff of a stored
// object, the counts; nothing for cases that pass.
func TestTextReport(t *testing.T) {
	suites, err := Read([]string{"-"}, manifest.Stdin(strings.NewReader(`name: S
crdName: crontabs.stable.example.com
tests:
  onCreate:
  - name: passes
    initial: "{apiVersion: stable.example.com/v1, kind: CronTab, spec: {}}"
  - name: stores another object
    initial: "{apiVersion: stable.example.com/v1, kind: CronTab, spec: {replicas: 3}}"
    expected: "{apiVersion: stable.example.com/v1, kind: CronTab, spec: {replicas: 4}}"
`)))
	if err != nil {
		t.Fatal(err)
	}
	results := runner(t).Run(context.Background(), suites)
	var out bytes.Buffer
	if err := Write(&out, "text", Report{Cases: results, Summary: Summarize(results, GivenBy(suites))}, suites); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"-:7: FAIL S / onCreate / stores another object: the stored object is not the expected one\n",
		"    -  replicas: 4\n",
		"    +  replicas: 3\n",
		"1 of 2 cases passed (1 failed) in 1 suite\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "passes") {
		t.Errorf("a passing case is reported:\n%s", out.String())
	}
}

// TestFeatureGateSingular: a suite's featureGate (one gate, as some suites
// write it) counts as featureGates do: the text output says once that
// gates are not set.
func TestFeatureGateSingular(t *testing.T) {
	doc := "name: gated\ncrdName: crontabs.stable.example.com\nfeatureGate: SomeGate\ntests:\n  onCreate:\n  - name: ok\n    initial: \"{apiVersion: stable.example.com/v1, kind: CronTab, spec: {}}\"\n"
	docs, err := manifest.Read("gated.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	s := decode(&docs[0])
	if s.Err != nil || len(s.FeatureGates) != 1 || s.FeatureGates[0] != "SomeGate" {
		t.Fatalf("suite %+v, %v", s.FeatureGates, s.Err)
	}
	results := runner(t).Run(context.Background(), []*Suite{s})
	var out bytes.Buffer
	if err := Write(&out, "text", Report{Cases: results, Summary: Summarize(results, GivenBy([]*Suite{s}))}, []*Suite{s}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "note: the feature gates of gated.yaml are not set here") {
		t.Errorf("text output:\n%s", out.String())
	}
}

// TestDroppedFieldSaidWhy: an expected field the stored object lacks is
// said with why: unknown to the schema (pruned on write).
func TestDroppedFieldSaidWhy(t *testing.T) {
	doc := `name: pruned
crdName: crontabs.stable.example.com
tests:
  onCreate:
  - name: an unknown field expected
    initial: "{apiVersion: stable.example.com/v1, kind: CronTab, spec: {image: a, bogus: {deep: 1}}}"
    expected: "{apiVersion: stable.example.com/v1, kind: CronTab, spec: {image: a, bogus: {deep: 1}}}"
`
	docs, err := manifest.Read("pruned.yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	results := runner(t).Run(context.Background(), []*Suite{decode(&docs[0])})
	if len(results) != 1 || results[0].Status != Failed {
		t.Fatalf("results %+v", results)
	}
	want := "spec.bogus: not stored: spec.bogus is unknown to the schema of v1, and the server prunes it"
	if !strings.Contains(results[0].Message, want) {
		t.Errorf("message %q, want it to say %q", results[0].Message, want)
	}
}

func TestMissingPaths(t *testing.T) {
	want := map[string]any{"spec": map[string]any{"a": 1, "b": map[string]any{"c": 1}, "l": []any{map[string]any{"x": 1, "y": 2}}}, "status": map[string]any{}}
	got := map[string]any{"spec": map[string]any{"b": map[string]any{}, "l": []any{map[string]any{"x": 1}}}}
	if m := strings.Join(missing(want, got, ""), " "); m != "spec.a spec.b.c spec.l[0].y status" {
		t.Errorf("missing %q", m)
	}
}

// TestSuiteVersion: a suite's version is the version its cases run at,
// whatever the objects' own apiVersion says: read back at v1beta1, an
// object has v1's defaults for the fields v1beta1 knows, not minReplicas,
// which v1beta1's schema prunes; a version the CRD does not serve is a
// suite that cannot run, said at its version: line.
func TestSuiteVersion(t *testing.T) {
	suite := func(version string) *Suite {
		doc := "name: versioned\ncrdName: crontabs.stable.example.com\nversion: " + version + `
tests:
  onCreate:
  - name: read back at the suite's version
    initial: "{apiVersion: stable.example.com/v1, kind: CronTab, spec: {replicas: 2}}"
    expected: "{apiVersion: stable.example.com/v1beta1, kind: CronTab, spec: {replicas: 2, cronSpec: '5 0 * * *', image: my-awesome-cron-image}}"
`
		docs, err := manifest.Read("versioned.yaml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		return decode(&docs[0])
	}
	r := runner(t)
	if got := r.Run(context.Background(), []*Suite{suite("v1beta1")}); len(got) != 1 || got[0].Status != Passed {
		t.Errorf("at v1beta1: %+v", got)
	}
	if got := r.Run(context.Background(), []*Suite{suite("v1")}); len(got) != 1 || got[0].Status != Failed {
		t.Errorf("at v1 (minReplicas is kept): %+v", got)
	}
	got := r.Run(context.Background(), []*Suite{suite("v1beta3")})
	if len(got) != 1 || got[0].Status != Errored || got[0].Line != 3 || !strings.Contains(got[0].Message, "v1beta3") {
		t.Errorf("at a version not served: %+v", got)
	}
}
