package report

import (
	"encoding/xml"
	"io"
)

// JUnit is a JUnit XML report: a test suite per input file (or suite
// file), a test case per object (or case).
type JUnit struct {
	// Name is the command, such as "kubectl crd validate".
	Name   string
	Suites []*Suite
	// Properties are said of the whole run (what it did not check, for
	// one), as properties of every suite: JUnit readers show those.
	Properties []Property
}

// Property is a <property> of a suite.
type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// Suite is one <testsuite>.
type Suite struct {
	Name  string
	Cases []Case
}

// Case is one <testcase>: passed, or one of failed, errored or skipped.
type Case struct {
	Name, Classname string
	// Failure: the case failed (the object is invalid, the expectation
	// not met); Error: it could not be run; Skipped: it was not run.
	Failure, Error, Skipped *Message
	// SystemOut says what the case ran on; SystemErr holds warnings.
	SystemOut, SystemErr string
}

// Message is a failure's, error's or skip's message, its type and text.
type Message struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// Suite returns the suite of that name, added the first time it is asked
// for.
func (j *JUnit) Suite(name string) *Suite {
	for _, s := range j.Suites {
		if s.Name == name {
			return s
		}
	}
	s := &Suite{Name: name}
	j.Suites = append(j.Suites, s)
	return s
}

// Write writes the report, with each suite's and the whole's counts.
func (j *JUnit) Write(w io.Writer) error {
	out := junitSuites{Name: j.Name}
	for _, s := range j.Suites {
		js := junitSuite{Name: s.Name}
		if len(j.Properties) > 0 {
			js.Properties = &junitProperties{Properties: j.Properties}
		}
		for _, c := range s.Cases {
			js.Tests++
			switch {
			case c.Failure != nil:
				js.Failures++
			case c.Error != nil:
				js.Errors++
			case c.Skipped != nil:
				js.Skipped++
			}
			js.Cases = append(js.Cases, junitCase(c))
		}
		out.Tests += js.Tests
		out.Failures += js.Failures
		out.Errors += js.Errors
		out.Skipped += js.Skipped
		out.Suites = append(out.Suites, js)
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
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Properties []Property `xml:"property"`
}

type junitCase struct {
	Name      string   `xml:"name,attr"`
	Classname string   `xml:"classname,attr"`
	Failure   *Message `xml:"failure,omitempty"`
	Error     *Message `xml:"error,omitempty"`
	Skipped   *Message `xml:"skipped,omitempty"`
	SystemOut string   `xml:"system-out,omitempty"`
	SystemErr string   `xml:"system-err,omitempty"`
}
