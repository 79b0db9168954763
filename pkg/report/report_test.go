package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
)

func TestAnnotationEscapes(t *testing.T) {
	got := Annotation("error", "a,b:c%.yaml", 0, 0, "T:1", "x\ny%")
	want := "::error file=a%2Cb%3Ac%25.yaml,line=1,title=T%3A1::x%0Ay%25\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := Annotation("warning", "f", 3, 7, "t", "m"); got != "::warning file=f,line=3,col=7,title=t::m\n" {
		t.Errorf("with a column: %q", got)
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 errors", 1: "1 error", 2: "2 errors"} {
		if got := Plural(n, "error", "errors"); got != want {
			t.Errorf("%d: %q, want %q", n, got, want)
		}
	}
}

// TestSARIF: one rule per ID, each result pointing at its rule, unknown
// positions written as 1, the Kubernetes version in the run.
func TestSARIF(t *testing.T) {
	s := SARIF{ToolVersion: "v1", KubernetesVersion: "1.35"}
	s.Add(Finding{RuleID: "A", Rule: "rule a", Level: LevelError, Message: "m1", File: "f.yaml", Line: 3, Column: 5})
	s.Add(Finding{RuleID: "B", Rule: "rule b", Level: LevelWarning, Message: "m2", File: "f.yaml"})
	s.Add(Finding{RuleID: "A", Rule: "ignored", Level: LevelNote, Message: "m3", File: "g.yaml", Line: 9})
	var out bytes.Buffer
	if err := s.Write(&out); err != nil {
		t.Fatal(err)
	}
	var log struct {
		Version string `json:"version"`
		Runs    []struct {
			Tool struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID               string `json:"id"`
						ShortDescription struct{ Text string }
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartLine, StartColumn int }
					}
				}
			} `json:"results"`
			Properties map[string]string `json:"properties"`
		} `json:"runs"`
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if log.Version != "2.1.0" || run.Tool.Driver.Name != Tool || len(run.Tool.Driver.Rules) != 2 || run.Tool.Driver.Rules[0].ShortDescription.Text != "rule a" || run.Properties["kubernetesVersion"] != "1.35" {
		t.Fatalf("log:\n%s", out.String())
	}
	for _, r := range run.Results {
		if run.Tool.Driver.Rules[r.RuleIndex].ID != r.RuleID {
			t.Errorf("result of %s points at rule %d", r.RuleID, r.RuleIndex)
		}
	}
	if reg := run.Results[1].Locations[0].PhysicalLocation.Region; reg.StartLine != 1 || reg.StartColumn != 1 {
		t.Errorf("unknown position written as %+v, want 1:1", reg)
	}
}

func TestJUnitCounts(t *testing.T) {
	j := JUnit{Name: "kubectl crd test"}
	a := j.Suite("a.yaml")
	a.Cases = append(a.Cases, Case{Name: "ok"}, Case{Name: "bad", Failure: &Message{Message: "no"}})
	j.Suite("b.yaml").Cases = append(j.Suite("b.yaml").Cases, Case{Name: "skip", Skipped: &Message{}}, Case{Name: "err", Error: &Message{}})
	if j.Suite("a.yaml") != a {
		t.Fatal("a suite asked for again is not the same one")
	}
	var out bytes.Buffer
	if err := j.Write(&out); err != nil {
		t.Fatal(err)
	}
	var root struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Errors   int `xml:"errors,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Tests int `xml:"tests,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(out.Bytes(), &root); err != nil || !strings.HasPrefix(out.String(), xml.Header) {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if root.Tests != 4 || root.Failures != 1 || root.Errors != 1 || root.Skipped != 1 || len(root.Suites) != 2 || root.Suites[0].Tests != 2 {
		t.Errorf("counts %+v\n%s", root, out.String())
	}
}
