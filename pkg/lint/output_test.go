package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/report"
)

// many are findings as a large project has them: many CRDs, thousands of
// findings of a few checks, long messages and fixes.
func many(n int) []Finding {
	checks := []string{"minlength", "maxlength", "maxlength", "nobools", "ssatags", "minlength", "minlength"}
	var out []Finding
	for i := range n {
		out = append(out, Finding{File: fmt.Sprintf("crds/%c.yaml", 'a'+i%3), Line: i + 1, Column: 7, CRD: fmt.Sprintf("things%d.example.com", i%3),
			Version: "v1", Check: checks[i%len(checks)], Severity: report.Warning, Field: fmt.Sprintf("spec.some.long.path.to.field%d", i),
			Message: strings.Repeat("a message about the field ", 5), Fix: strings.Repeat("what to change ", 8)})
	}
	return out
}

// TestOutputAtScale: the text output ends with the counts per check and
// per CRD, most first; markdown is a summary that fits a pull request's
// comment (the counts, the first findings of each check, how many more)
// and --all has every finding; SARIF gives each rule its page and each
// result its fix, and the Kubernetes version; GitHub's annotation carries
// the fix.
func TestOutputAtScale(t *testing.T) {
	findings := many(20000)
	var text bytes.Buffer
	if err := Write(&text, findings, Output{Format: "text"}); err != nil {
		t.Fatal(err)
	}
	tail := text.String()[strings.LastIndex(text.String(), "20000 findings"):]
	want := "20000 findings (0 error, 20000 warning, 0 info)\nby check:\n  minlength   8572\n  maxlength   5714\n  nobools     2857\n  ssatags     2857\nby CRD:\n  things0.example.com   6667\n  things1.example.com   6667\n  things2.example.com   6666\n"
	if tail != want {
		t.Errorf("the text ends:\n%s\nwant:\n%s", tail, want)
	}
	var md bytes.Buffer
	if err := Write(&md, findings, Output{Format: "markdown"}); err != nil {
		t.Fatal(err)
	}
	if md.Len() > 65536 {
		t.Errorf("the markdown summary is %d characters: a GitHub comment holds 65,536", md.Len())
	}
	for _, s := range []string{"| [minlength](" + DocsURL + "#minlength) | 8572 |", "| things0.example.com | 6667 |", "19988 more findings: every finding with `kubectl crd lint -o markdown --all`, or `-o json`."} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("the markdown summary lacks %q:\n%s", s, md.String())
		}
	}
	var all bytes.Buffer
	if err := Write(&all, findings, Output{Format: "markdown", All: true}); err != nil {
		t.Fatal(err)
	}
	if rows := strings.Count(all.String(), "\n| crds/"); rows != 20000 {
		t.Errorf("--all: %d rows, want 20000", rows)
	}
	var sarif bytes.Buffer
	if err := Write(&sarif, findings[:10], Output{Format: "sarif", Version: "v1", KubernetesVersion: "1.37"}); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID      string
						Help    struct{ Text string }
						HelpURI string `json:"helpUri"`
					}
				}
			}
			Results []struct {
				Message struct{ Text string }
			}
			Properties map[string]string
		}
	}
	if err := json.Unmarshal(sarif.Bytes(), &log); err != nil || len(log.Runs) != 1 {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if run.Properties["kubernetesVersion"] != "1.37" {
		t.Errorf("SARIF properties %v", run.Properties)
	}
	for _, r := range run.Tool.Driver.Rules {
		if r.HelpURI != DocsURL+"#"+r.ID || !strings.Contains(r.Help.Text, r.HelpURI) {
			t.Errorf("rule %s: help %q at %q", r.ID, r.Help.Text, r.HelpURI)
		}
	}
	if !strings.Contains(run.Results[0].Message.Text, "Fix: "+findings[0].Fix) {
		t.Errorf("a SARIF result without its fix: %q", run.Results[0].Message.Text)
	}
	var gh bytes.Buffer
	if err := Write(&gh, findings[:1], Output{Format: "github"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(gh.String(), "%0Afix: "+findings[0].Fix) {
		t.Errorf("the annotation without its fix: %s", gh.String())
	}
}

// TestFindingsInFileOrder: findings come in the order of their files and
// lines, whatever order the CRDs were read in.
func TestFindingsInFileOrder(t *testing.T) {
	crds := readCRDs(t, "testdata/conventions.yaml")
	slices.Reverse(crds)
	findings, err := Lint(crds, Options{Profile: "kube"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.IsSortedFunc(findings, func(a, b Finding) int {
		return strings.Compare(fmt.Sprintf("%s:%09d:%09d", a.File, a.Line, a.Column), fmt.Sprintf("%s:%09d:%09d", b.File, b.Line, b.Column))
	}) {
		t.Error("findings not in file and line order")
	}
}
