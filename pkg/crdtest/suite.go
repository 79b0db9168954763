// Package crdtest runs CRD test suites, in the format of openshift/api's
// tests (a CRD named by crdName, onCreate and onUpdate cases), as the API
// server would answer them, without a control plane: each case is the
// server's request path through pkg/validate (the custom resource
// strategy's create, update and status update, with defaulting, pruning,
// schema and CEL validation, ratcheting), and its error is the one the
// server's Status carries, composed by the same apimachinery code.
package crdtest

import (
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apimachinery/pkg/runtime/schema"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// Suite is one suite document: the CRD under test and its cases.
type Suite struct {
	// APIVersion is accepted and ignored, as the format's runner does.
	APIVersion string `json:"apiVersion"`
	Name       string `json:"name"`
	// CRDName names the CRD under test (plural.group).
	CRDName string `json:"crdName"`
	// CRD is a CRD file, relative to the suite's file (older suites).
	CRD string `json:"crd"`
	// Version is the version under test; else the CRD's only version,
	// else the apiVersion of the cases' objects.
	Version string `json:"version"`
	// FeatureGates are accepted: the CRD given is the one tested.
	FeatureGates []string `json:"featureGates"`
	// FeatureGate is one gate, as some suites write it: added to
	// FeatureGates.
	FeatureGate string `json:"featureGate"`
	Tests       Tests  `json:"tests"`

	// File and Line are where the suite is; CRDLine where it names its
	// CRD.
	File    string `json:"-"`
	Line    int    `json:"-"`
	CRDLine int    `json:"-"`
	// VersionLine is where it names its version.
	VersionLine int `json:"-"`
	// Err says why the suite cannot run (nil: it can).
	Err error `json:"-"`
}

// caseNames are the names of a suite's cases, in order.
func (s *Suite) caseNames() []string {
	var out []string
	for _, c := range s.Tests.OnCreate {
		out = append(out, c.Name)
	}
	for _, c := range s.Tests.OnUpdate {
		out = append(out, c.Name)
	}
	return out
}

// objectsVersion is the version of the objects of a suite's first case
// that names one ("" when none does).
func (s *Suite) objectsVersion() string {
	var texts []string
	for _, c := range s.Tests.OnCreate {
		texts = append(texts, c.Initial)
	}
	for _, c := range s.Tests.OnUpdate {
		texts = append(texts, c.Initial, c.Updated)
	}
	for _, t := range texts {
		var tm struct {
			APIVersion string `json:"apiVersion"`
		}
		if yaml.Unmarshal([]byte(t), &tm) == nil && tm.APIVersion != "" {
			return schema.FromAPIVersionAndKind(tm.APIVersion, "").Version
		}
	}
	return ""
}

// Tests are a suite's cases.
type Tests struct {
	OnCreate []CreateCase `json:"onCreate"`
	OnUpdate []UpdateCase `json:"onUpdate"`
}

// CreateCase creates Initial and expects ExpectedError (a substring of
// the server's error) or, stored, Expected.
type CreateCase struct {
	Name string `json:"name"`
	// ResourceName names the object (or, with UseGenerateName, is its
	// generateName).
	ResourceName    string `json:"resourceName"`
	UseGenerateName bool   `json:"useGenerateName"`
	Initial         string `json:"initial"`
	ExpectedError   string `json:"expectedError"`
	Expected        string `json:"expected"`

	Line int `json:"-"`
}

// UpdateCase creates Initial (under the CRD with InitialCRDPatches
// applied, when there are some), writes its status, then updates it to
// Updated and writes Updated's status, under the CRD as it is.
type UpdateCase struct {
	Name                string  `json:"name"`
	ResourceName        string  `json:"resourceName"`
	UseGenerateName     bool    `json:"useGenerateName"`
	InitialCRDPatches   []Patch `json:"initialCRDPatches"`
	Initial             string  `json:"initial"`
	Updated             string  `json:"updated"`
	ExpectedError       string  `json:"expectedError"`
	ExpectedStatusError string  `json:"expectedStatusError"`
	Expected            string  `json:"expected"`

	Line int `json:"-"`
}

// Patch is one RFC 6902 operation on the CRD.
type Patch struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from,omitempty"`
	Value *any   `json:"value,omitempty"`
}

// Read reads the suites of paths (files, directories read recursively,
// and what src reads: "-" for stdin, URLs, git revisions): each YAML
// document that has tests. A document that is not a suite the format
// knows (an unknown field, a value of the wrong type) is a suite that
// cannot run, with its place; a file that cannot be read is an error.
func Read(paths []string, src manifest.Sources) ([]*Suite, error) {
	docs, err := manifest.ReadPaths(paths, true, src)
	if err != nil {
		return nil, err
	}
	return Suites(docs), nil
}

// Suites are the suites among docs (see Read).
func Suites(docs []manifest.Document) []*Suite {
	var suites []*Suite
	for i := range docs {
		d := &docs[i]
		var probe struct {
			Tests any `json:"tests"`
		}
		if sigsjson.UnmarshalCaseSensitivePreserveInts(d.JSON, &probe) != nil || probe.Tests == nil {
			continue
		}
		suites = append(suites, decode(d))
	}
	return suites
}

// decode reads one suite document, strictly, with the line of each case.
func decode(d *manifest.Document) *Suite {
	s := &Suite{}
	s.File, s.Line = d.File, d.Line
	strict, err := sigsjson.UnmarshalStrict(d.JSON, s)
	if len(d.Warnings) > 0 { // a key given twice would hide a case
		s.Err = d.Warnings[0]
		return s
	}
	if err != nil {
		if e := typeMismatch(d); e != nil {
			s.Err = e
			return s
		}
		s.Err = &manifest.Error{File: d.File, Line: d.Line, Msg: "not a test suite: " + strings.TrimPrefix(err.Error(), "json: ")}
		return s
	}
	if len(strict) > 0 { // the first is said: the suite cannot run
		e := strict[0]
		path, ok := builtin.UnknownField(e)
		if !ok {
			path = e.Error()
		}
		line, column := d.Position(path)
		s.Err = &manifest.Error{File: d.File, Line: line, Column: column, Msg: fmt.Sprintf("unknown field %q: not a field of the suite format", path)}
		return s
	}
	if s.FeatureGate != "" {
		s.FeatureGates = append(s.FeatureGates, s.FeatureGate)
	}
	s.CRDLine, s.VersionLine = s.Line, s.Line
	if line, _ := d.Position("version"); s.Version != "" {
		s.VersionLine = line
	}
	for _, f := range []string{"crdName", "crd"} {
		if line, _ := d.Position(f); line != d.Line {
			s.CRDLine = line
		}
	}
	for i := range s.Tests.OnCreate {
		s.Tests.OnCreate[i].Line, _ = d.Position(fmt.Sprintf("tests.onCreate[%d]", i))
	}
	for i := range s.Tests.OnUpdate {
		s.Tests.OnUpdate[i].Line, _ = d.Position(fmt.Sprintf("tests.onUpdate[%d]", i))
	}
	if s.CRDName == "" && s.CRD == "" {
		s.Err = &manifest.Error{File: d.File, Line: d.Line, Msg: "crdName: Required value: the suite names the CRD under test"}
	}
	return s
}
