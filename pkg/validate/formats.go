package validate

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// JUnit XML: a test suite per file, a test case per object.

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemErr string        `xml:"system-err,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML.
func (r Report) WriteJUnit(w io.Writer) error {
	out := junitSuites{Name: "kubectl crd validate"}
	index := map[string]int{}
	for _, res := range r.Results {
		i, ok := index[res.File]
		if !ok {
			i = len(out.Suites)
			index[res.File] = i
			out.Suites = append(out.Suites, junitSuite{Name: res.File})
		}
		s := &out.Suites[i]
		c := junitCase{Name: fmt.Sprintf("%s/%s (line %d)", res.Kind, res.Name, res.Line), Classname: res.File}
		switch res.Status {
		case "invalid":
			c.Failure = &junitMessage{Message: fmt.Sprintf("%d problems", len(res.Errors)), Type: res.Errors[0].Type, Text: problemLines(res.File, res.Errors)}
			s.Failures++
		case "error":
			c.Error = &junitMessage{Message: res.Reason, Text: problemLines(res.File, res.Errors)}
			s.Errors++
		case "skipped":
			c.Skipped = &junitMessage{Message: res.Reason}
			s.Skipped++
		}
		if len(res.Warnings) > 0 {
			c.SystemErr = problemLines(res.File, res.Warnings)
		}
		s.Tests++
		s.Cases = append(s.Cases, c)
	}
	for _, s := range out.Suites {
		out.Tests += s.Tests
		out.Failures += s.Failures
		out.Errors += s.Errors
		out.Skipped += s.Skipped
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func problemLines(file string, ps []Problem) string {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "%s:%d:%d: %s: %s\n", file, p.Line, p.Column, p.Field, p.Message)
	}
	return b.String()
}

// SARIF 2.1.0: one result per problem, a rule per cause type.

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
	// Properties hold the Kubernetes version answered as.
	Properties map[string]string `json:"properties"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	RuleIndex int             `json:"ruleIndex"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation struct {
		ArtifactLocation struct {
			URI string `json:"uri"`
		} `json:"artifactLocation"`
		Region struct {
			StartLine   int `json:"startLine"`
			StartColumn int `json:"startColumn"`
		} `json:"region"`
	} `json:"physicalLocation"`
}

// WriteSARIF writes the report as a SARIF 2.1.0 log.
func (r Report) WriteSARIF(w io.Writer, version string) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: "kubectl-crd", Version: version,
			InformationURI: "https://github.com/kubectl-crd/kubectl-crd", Rules: []sarifRule{}}},
		Results:    []sarifResult{},
		Properties: map[string]string{"kubernetesVersion": r.KubernetesVersion},
	}
	rules := map[string]int{}
	emit := func(file, level string, p Problem) {
		id := p.Type
		if id == "" {
			id = "Error"
		}
		i, ok := rules[id]
		if !ok {
			i = len(run.Tool.Driver.Rules)
			rules[id] = i
			run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRule{ID: id, ShortDescription: sarifMessage{Text: ruleText(id)}})
		}
		msg := p.Message
		if p.Field != "" {
			msg = p.Field + ": " + msg
		}
		var loc sarifLocation
		loc.PhysicalLocation.ArtifactLocation.URI = file
		loc.PhysicalLocation.Region.StartLine = max(p.Line, 1)
		loc.PhysicalLocation.Region.StartColumn = max(p.Column, 1)
		run.Results = append(run.Results, sarifResult{RuleID: id, RuleIndex: i, Level: level, Message: sarifMessage{Text: msg}, Locations: []sarifLocation{loc}})
	}
	for _, res := range r.Results {
		if res.Status == "error" && len(res.Errors) == 0 {
			emit(res.File, "error", Problem{Message: res.Reason, Line: res.Line})
		}
		for _, p := range res.Errors {
			emit(res.File, "error", p)
		}
		for _, p := range res.Warnings {
			emit(res.File, "warning", p)
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{run}})
}

func ruleText(id string) string {
	switch id {
	case "FieldValueUnknown":
		return "A field the schema does not declare (the server would drop it)"
	case "Deprecated":
		return "A deprecated API version"
	case "InputInvalid":
		return "Input that cannot be read as an object"
	case "Error":
		return "The object could not be checked"
	}
	return "The API server rejects the object: " + id
}

// writeGitHubResult writes a GitHub Actions workflow command per problem
// of a result (::error / ::warning with file, line and column).
func writeGitHubResult(w io.Writer, res ObjectResult) error {
	var b strings.Builder
	if res.Status == "error" && len(res.Errors) == 0 {
		fmt.Fprintf(&b, "::error file=%s,line=%d,title=%s::%s\n", ghProperty(res.File), res.Line, "Error", ghData(res.Reason))
	}
	for _, p := range res.Errors {
		fmt.Fprintf(&b, "::error %s::%s\n", ghLocation(res.File, p), ghData(fieldMessage(p)))
	}
	for _, p := range res.Warnings {
		fmt.Fprintf(&b, "::warning %s::%s\n", ghLocation(res.File, p), ghData(fieldMessage(p)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// ghLocation is a workflow command's file, line, col (when known) and
// title properties.
func ghLocation(file string, p Problem) string {
	col := ""
	if p.Column > 0 {
		col = fmt.Sprintf(",col=%d", p.Column)
	}
	return fmt.Sprintf("file=%s,line=%d%s,title=%s", ghProperty(file), p.Line, col, ghProperty(p.Type))
}

func fieldMessage(p Problem) string {
	if p.Field == "" {
		return p.Message
	}
	return p.Field + ": " + p.Message
}

// ghData and ghProperty escape workflow command values as the Actions
// runner unescapes them.
func ghData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

func ghProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}
