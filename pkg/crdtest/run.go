package crdtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/kubectl-crd/kubectl-crd/internal/memo"
	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/convert"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Statuses of a case.
const (
	Passed = "passed"
	Failed = "failed"
	// Errored: the case could not be run (its input is not what the
	// format says, or its suite cannot run).
	Errored = "error"
)

// Result is one case's verdict.
type Result struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column,omitempty"`
	Suite  string `json:"suite"`
	// Kind is onCreate or onUpdate ("" for a suite that cannot run).
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Status string `json:"status"`
	// Message says why it failed or could not run.
	Message string `json:"message,omitempty"`
	// Diff is the stored object against the expected one, as a unified
	// diff of their YAML, when they differ.
	Diff string `json:"diff,omitempty"`
	// CRD is the file the case ran against when its CRD has a file per
	// feature set: "FILE:LINE (FEATURE-SETS)".
	CRD string `json:"crd,omitempty"`
	// Cases, for a suite that cannot run (Kind ""), is how many of its
	// cases it stands for: those --run asks for.
	Cases    int           `json:"cases,omitempty"`
	Duration time.Duration `json:"-"`
}

// Runner runs suites over a catalog of CRDs.
type Runner struct {
	Catalog *catalog.Catalog
	// Match, when set, runs only the cases whose "SUITE/CASE" name it
	// matches.
	Match *regexp.Regexp
	// Admission, when set, runs the admission policies around each
	// create and update of an object (not status writes), as the server
	// the format's runner talks to does: expectedError can match a
	// denial.
	Admission *policies.Chain
	// FeatureGates say which feature set enables which gate: they pick
	// the file of a CRD generated per feature set a suite with
	// featureGates runs against.
	FeatureGates FeatureGates

	validators memo.Map[string, *validate.Validator] // by CRD name and version
	installs   memo.Map[string, error]               // the server's refusal of a CRD, by name
	converters memo.Map[string, *convert.Converter]  // by CRD name
	// patchedCRDs are the CRDs initialCRDPatches make, by CRD name and
	// patches; patchedValidators their validators.
	patchedCRDs       memo.Map[string, *apiextensionsv1.CustomResourceDefinition]
	patchedValidators memo.Map[string, *validate.Validator]
}

// target is the CRD a suite tests, found before the suites run (the
// catalog answers one question at a time).
type target struct {
	crd *apiextensionsv1.CustomResourceDefinition
	// version is the suite's version under test ("": the objects' own).
	version string
	// variant is the file chosen among a CRD's files per feature set.
	variant string
	err     error
}

// Run runs every case of every suite, several at a time (cases are
// independent: each has its own objects, as the format's runner gives
// each its own names), and returns the results in suite and case order.
func (r *Runner) Run(ctx context.Context, suites []*Suite) []Result {
	var jobs []job
	for _, s := range suites {
		jobs = append(jobs, r.jobs(s, r.find(ctx, s))...)
	}
	out := make([]Result, len(jobs))
	parallel.On(runtime.GOMAXPROCS(0), len(jobs), func(i int) {
		out[i] = jobs[i].run(ctx)
	})
	return out
}

// job is one case to run, with what its suite says of it.
type job struct {
	Result
	run0 func() Result
	t    target
	r    *Runner
}

func (j job) run(ctx context.Context) Result {
	res := j.Result
	start := time.Now()
	switch {
	case j.t.err != nil:
		res.Status, res.Message = Errored, j.t.err.Error()
	case j.r.refused(ctx, j.t.crd) != nil:
		res.Status, res.Message = Failed, "the server refuses the CustomResourceDefinition "+j.t.crd.Name+": "+j.r.refused(ctx, j.t.crd).Error()
	default:
		got := j.run0()
		res.Status, res.Message, res.Diff = got.Status, got.Message, got.Diff
	}
	res.Duration = time.Since(start)
	return res
}

// jobs are a suite's cases to run (those Match keeps); a suite that
// cannot run, or whose CRD the server refuses, reports every case, and
// one without cases itself.
func (r *Runner) jobs(s *Suite, t target) []job {
	ctx := context.Background()
	var out []job
	add := func(kind, name string, line int, run func() Result) {
		if r.Match != nil && !r.Match.MatchString(s.Name+"/"+name) {
			return
		}
		out = append(out, job{Result: Result{File: s.File, Line: line, Suite: s.Name, Kind: kind, Name: name, CRD: t.variant}, run0: run, t: t, r: r})
	}
	if t.err != nil {
		// A suite that cannot run is one result, at the error's place
		// (where it names what is wrong), when a case of it was asked
		// for, standing for those cases.
		asked := 0
		for _, name := range s.caseNames() {
			if r.Match == nil || r.Match.MatchString(s.Name+"/"+name) {
				asked++
			}
		}
		if asked == 0 && (len(s.caseNames()) > 0 || r.Match != nil) {
			return nil
		}
		res := Result{File: s.File, Line: s.Line, Suite: s.Name, Cases: asked}
		var me *manifest.Error
		if errors.As(t.err, &me) && me.File == s.File {
			res.Line, res.Column = me.Line, me.Column
			t.err = errors.New(me.Msg)
		}
		return []job{{Result: res, t: t, r: r}}
	}
	for _, c := range s.Tests.OnCreate {
		add("onCreate", c.Name, c.Line, func() Result { return r.create(ctx, t.crd, t.version, s.File, c) })
	}
	for _, c := range s.Tests.OnUpdate {
		add("onUpdate", c.Name, c.Line, func() Result { return r.update(ctx, t.crd, t.version, s.File, c) })
	}
	return out
}

// refused is the server's refusal to create crd (nil: it creates it), at
// the Kubernetes version answered as.
func (r *Runner) refused(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	err, _ := r.installs.Get(variantKey(crd), func() (error, error) {
		doc, err := installable(crd)
		if err != nil {
			return err, nil
		}
		return validate.CRD(ctx, doc, nil).Err, nil
	})
	return err
}

// installable is a CRD as a user creates it: its names, labels,
// annotations and spec (not what a cluster adds).
func installable(crd *apiextensionsv1.CustomResourceDefinition) ([]byte, error) {
	fresh := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: apiextensionsv1.SchemeGroupVersion.String(), Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: crd.Name, Labels: crd.Labels, Annotations: crd.Annotations},
		Spec:       crd.Spec,
	}
	return json.Marshal(fresh)
}

// validator is the validator of a version of crd, built once per CRD.
func (r *Runner) validator(crd *apiextensionsv1.CustomResourceDefinition, version string) (*validate.Validator, error) {
	return r.validators.Get(variantKey(crd)+"/"+version, func() (*validate.Validator, error) {
		return newValidator(crd, version, r.Admission != nil)
	})
}

// newValidator checks the version is served, as the server answers only
// for those, and builds its validator (for admission policies too when
// admitting).
func newValidator(crd *apiextensionsv1.CustomResourceDefinition, version string, admitting bool) (*validate.Validator, error) {
	if v := catalog.VersionNamed(crd, version); v == nil || !v.Served {
		return nil, fmt.Errorf("no matches for kind %q in version %q", crd.Spec.Names.Kind, crd.Spec.Group+"/"+version)
	}
	if admitting {
		return validate.NewAdmissionValidator(crd, version)
	}
	return validate.NewValidator(crd, version)
}

// variantKey names a CRD among the files of its name generated per
// feature set (and cluster profile) or per API version: what the
// runner's caches are keyed by.
func variantKey(crd *apiextensionsv1.CustomResourceDefinition) string {
	return crd.Name + " " + crd.Annotations[catalog.FeatureSetAnnotation] + " " + strings.Join(catalog.Profiles(crd), ",") +
		" " + strings.Join(catalog.ServedVersions(crd), ",")
}

// positioned is an error about a case's input at its line.
func positioned(file string, line int, field string, err error) error {
	return &manifest.Error{File: file, Line: line, Msg: field + ": " + err.Error()}
}
