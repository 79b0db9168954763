package crdtest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

func suitesOf(t *testing.T, docs ...string) []*Suite {
	t.Helper()
	var out []*Suite
	for i, doc := range docs {
		read, err := manifest.Read(fmt.Sprintf("s%d.yaml", i), []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		for j := range read {
			out = append(out, decode(&read[j]))
		}
	}
	return out
}

func textOf(t *testing.T, results []Result, suites []*Suite) string {
	t.Helper()
	var out bytes.Buffer
	if err := Write(&out, "text", Report{Cases: results, Summary: Summarize(results, GivenBy(suites))}, suites); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestCountsWhatWasThereAndWhatRan: a suite that cannot run (a misspelt
// key) counts each of its cases as one that could not run; --run counts
// the cases and suites it ran, and says how many were given.
func TestCountsWhatWasThereAndWhatRan(t *testing.T) {
	good := func(name string) string {
		return "name: " + name + "\ncrdName: crontabs.stable.example.com\ntests:\n  onCreate:\n  - name: a\n    initial: \"{apiVersion: stable.example.com/v1, kind: CronTab, spec: {}}\"\n  - name: b\n    initial: \"{apiVersion: stable.example.com/v1, kind: CronTab, spec: {}}\"\n"
	}
	misspelt := "name: M\ncrdName: crontabs.stable.example.com\ntests:\n  onCreate:\n  - name: a\n    initial: \"{apiVersion: stable.example.com/v1, kind: CronTab, spec: {}}\"\n  - name: b\n    initial: \"{apiVersion: stable.example.com/v1, kind: CronTab, spec: {replicas: 99}}\"\n    expectedErorr: replicas\n"
	suites := suitesOf(t, misspelt)
	results := runner(t).Run(context.Background(), suites)
	if got := textOf(t, results, suites); !strings.HasSuffix(got, "0 of 2 cases passed (2 could not run) in 1 suite\n") {
		t.Errorf("a two-case suite that cannot run:\n%s", got)
	}
	var docs []string
	for i := range 9 {
		docs = append(docs, good(fmt.Sprintf("S%d", i)))
	}
	suites = suitesOf(t, docs...)
	r := runner(t)
	r.Match = regexp.MustCompile(`^S3/`)
	results = r.Run(context.Background(), suites)
	if got := textOf(t, results, suites); !strings.HasSuffix(got, "2 of 2 cases passed in 1 suite (of 18 cases in 9 suites given)\n") {
		t.Errorf("--run selecting one suite of nine:\n%s", got)
	}
	if got := textOf(t, runner(t).Run(context.Background(), suites), suites); !strings.HasSuffix(got, "18 of 18 cases passed in 9 suites\n") {
		t.Errorf("every suite:\n%s", got)
	}
}

// TestDroppedFieldReasonOnlyWhenKnown: an expected field that was never
// written, and that nothing defaults, is said as such, not as a null
// the server dropped; one written as null is said as that.
func TestDroppedFieldReasonOnlyWhenKnown(t *testing.T) {
	suites := suitesOf(t, `name: S
crdName: crontabs.stable.example.com
tests:
  onCreate:
  - name: never set
    initial: "{apiVersion: stable.example.com/v1, kind: CronTab, spec: {image: a}}"
    expected: "{apiVersion: stable.example.com/v1, kind: CronTab, spec: {image: a, maxReplicas: 5}}"
  - name: set to null
    initial: "{apiVersion: stable.example.com/v1, kind: CronTab, spec: {image: a, maxReplicas: null}}"
    expected: "{apiVersion: stable.example.com/v1, kind: CronTab, spec: {image: a, maxReplicas: 5}}"
`)
	results := runner(t).Run(context.Background(), suites)
	if len(results) != 2 || results[0].Status != Failed || results[1].Status != Failed {
		t.Fatalf("results %+v", results)
	}
	for i, want := range []string{
		"spec.maxReplicas: not stored: the object written does not have it, and nothing defaults it",
		"spec.maxReplicas: not stored: written as null",
	} {
		if !strings.Contains(results[i].Message, want) {
			t.Errorf("%s: %q, want %q", results[i].Name, results[i].Message, want)
		}
		if i == 0 && strings.Contains(results[i].Message, "null") {
			t.Errorf("%s: a null is named where there was none: %q", results[i].Name, results[i].Message)
		}
	}
}

// TestErrorMismatchOnLinesOfTheirOwn: an expected error the server's
// does not contain is printed as the expected text and the server's on
// lines of their own, aligned where they agree, the first difference
// marked, a long error shown around it.
func TestErrorMismatchOnLinesOfTheirOwn(t *testing.T) {
	suites := suitesOf(t, `name: S
crdName: crontabs.stable.example.com
tests:
  onCreate:
  - name: wrong bound expected
    initial: "{apiVersion: stable.example.com/v1, kind: CronTab, spec: {cronSpec: bad, replicas: 11}}"
    expectedError: "spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 5"
`)
	results := runner(t).Run(context.Background(), suites)
	got := textOf(t, results, suites)
	var expected, server, mark string
	for _, l := range strings.Split(got, "\n") {
		switch {
		case strings.HasPrefix(l, "    expected: "):
			expected = strings.TrimPrefix(l, "    expected: ")
		case strings.HasPrefix(l, "    got:      "):
			server = strings.TrimPrefix(l, "    got:      ")
		case strings.HasPrefix(strings.TrimSpace(l), "^"):
			mark = strings.TrimPrefix(l, "              ")
		}
	}
	if expected == "" || server == "" || mark == "" {
		t.Fatalf("no expected, got and mark lines:\n%s", got)
	}
	col := strings.Index(mark, "^")
	if e, s := []rune(expected), []rune(server); col >= len(e) || col >= len(s) || e[col] != '5' || s[col] != '1' || string(e[col-10:col]) != string(s[col-10:col]) {
		t.Errorf("the mark is not under the first difference:\n%s", got)
	}
	for _, l := range strings.Split(got, "\n") {
		if len(l) > 260 {
			t.Errorf("a line of %d characters:\n%s", len(l), l)
		}
	}
}

// TestPerVersionFiles: a CRD generated once per API version (a file
// serving v1, another serving v1alpha1, as openshift/api's manifests
// are) is read as two files of one CRD, and each suite runs against the
// file that serves its version, in one process with the same verdicts
// as a process per suite given only its own file; two files serving the
// same version are still defined twice.
func TestPerVersionFiles(t *testing.T) {
	dir := filepath.Join("..", "..", "test", "testdata", "perversion")
	suites, err := Read([]string{dir}, nil)
	if err != nil || len(suites) != 2 {
		t.Fatalf("%d suites, %v", len(suites), err)
	}
	files, err := catalog.ReadFiles([]string{dir}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	together := (&Runner{Catalog: catalog.New(files, nil)}).Run(context.Background(), suites)
	var apart []Result
	for _, s := range suites {
		own := strings.Replace(s.File, ".testsuite.yaml", ".crd.yaml", 1)
		files, err := catalog.ReadFiles([]string{own}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		apart = append(apart, (&Runner{Catalog: catalog.New(files, nil)}).Run(context.Background(), []*Suite{s})...)
	}
	verdicts := func(rs []Result) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Suite+"/"+r.Name+": "+r.Status+" "+r.Message)
		}
		return out
	}
	if !slices.Equal(verdicts(together), verdicts(apart)) || len(together) != 3 {
		t.Errorf("in one process:\n%s\none process per suite:\n%s", strings.Join(verdicts(together), "\n"), strings.Join(verdicts(apart), "\n"))
	}
	for _, r := range together {
		if r.Status != Passed || !strings.Contains(r.CRD, strings.TrimPrefix(r.Suite, "Gauge ")+".crd.yaml") {
			t.Errorf("%s/%s: %s against %s", r.Suite, r.Name, r.Status, r.CRD)
		}
	}
	twice := t.TempDir()
	v1, err := os.ReadFile(filepath.Join(dir, "gauges-v1.crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.yaml", "b.yaml"} {
		if err := os.WriteFile(filepath.Join(twice, name), v1, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := catalog.ReadFiles([]string{twice}, nil, nil); err == nil || !strings.Contains(err.Error(), "is defined twice") {
		t.Errorf("two files serving v1: %v", err)
	}
}
