package validate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Lookup finds the CRD of a kind; nil and no error when there is none.
type Lookup func(ctx context.Context, gvk schema.GroupVersionKind) (*apiextensionsv1.CustomResourceDefinition, error)

// Problem is one error or warning about one object.
type Problem struct {
	Field   string `json:"field"`
	Type    string `json:"type"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

// ObjectResult is the verdict on one object.
type ObjectResult struct {
	File       string    `json:"file"`
	Line       int       `json:"line"`
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Namespace  string    `json:"namespace,omitempty"`
	Name       string    `json:"name"`
	Operation  string    `json:"operation"`
	Status     string    `json:"status"` // valid, invalid, skipped or error
	Errors     []Problem `json:"errors"`
	Warnings   []Problem `json:"warnings"`
	Reason     string    `json:"reason,omitempty"` // why skipped, or the error
}

// Summary counts the verdicts.
type Summary struct {
	Valid   int `json:"valid"`
	Invalid int `json:"invalid"`
	Skipped int `json:"skipped"`
	Errors  int `json:"errors"`
}

// Report is the verdict on every object, in input order.
type Report struct {
	Results []ObjectResult `json:"results"`
	Summary Summary        `json:"summary"`
}

// UnknownFields says what unknown fields are: "strict" (errors), "warn"
// (warnings) or "ignore".
type UnknownFields string

// Documents validates every document as a create, several at a time, each
// CRD version's validator built once. CRD documents are skipped here.
func Documents(ctx context.Context, docs []manifest.Document, lookup Lookup, unknown UnknownFields) Report {
	results := make([]ObjectResult, len(docs))
	cache := &validators{m: map[string]*validatorEntry{}}
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range docs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = one(ctx, &docs[i], lookup, cache, unknown)
		}()
	}
	wg.Wait()
	r := Report{Results: results}
	for _, res := range results {
		switch res.Status {
		case "valid":
			r.Summary.Valid++
		case "invalid":
			r.Summary.Invalid++
		case "skipped":
			r.Summary.Skipped++
		default:
			r.Summary.Errors++
		}
	}
	return r
}

type validators struct {
	mu sync.Mutex
	m  map[string]*validatorEntry
}

type validatorEntry struct {
	once sync.Once
	v    *Validator
	err  error
}

func (c *validators) get(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Validator, error) {
	c.mu.Lock()
	e := c.m[crd.Name+"/"+version]
	if e == nil {
		e = &validatorEntry{}
		c.m[crd.Name+"/"+version] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = NewValidator(crd, version) })
	return e.v, e.err
}

func one(ctx context.Context, d *manifest.Document, lookup Lookup, cache *validators, unknown UnknownFields) ObjectResult {
	obj := &unstructured.Unstructured{}
	res := ObjectResult{File: d.File, Line: d.Line, Operation: "create", Errors: []Problem{}, Warnings: []Problem{}}
	if err := obj.UnmarshalJSON(d.JSON); err != nil {
		res.Status, res.Reason = "error", err.Error()
		return res
	}
	gvk := obj.GroupVersionKind()
	res.APIVersion, res.Kind, res.Namespace, res.Name = obj.GetAPIVersion(), obj.GetKind(), obj.GetNamespace(), obj.GetName()
	crd, err := lookup(ctx, gvk)
	if err != nil {
		res.Status, res.Reason = "error", err.Error()
		return res
	}
	if crd == nil {
		res.Status, res.Reason = "skipped", fmt.Sprintf("no CustomResourceDefinition for %s", gvk.GroupKind())
		return res
	}
	served := false
	for _, v := range crd.Spec.Versions {
		served = served || (v.Name == gvk.Version && v.Served)
	}
	if !served {
		res.Status = "invalid"
		res.Errors = append(res.Errors, Problem{Field: "apiVersion", Type: "FieldValueNotSupported",
			Message: fmt.Sprintf("version %q of %s is not served", gvk.Version, crd.Name)})
		res.Errors[0].Line, res.Errors[0].Column = d.Position("apiVersion")
		return res
	}
	v, err := cache.get(crd, gvk.Version)
	if err != nil {
		res.Status, res.Reason = "error", err.Error()
		return res
	}
	out := v.Create(ctx, obj.Object, "")
	for _, u := range out.Unknown {
		p := Problem{Field: u, Type: "FieldValueUnknown", Message: fmt.Sprintf("unknown field %q", u)}
		p.Line, p.Column = d.Position(u)
		switch unknown {
		case "warn":
			res.Warnings = append(res.Warnings, p)
		case "ignore":
		default:
			res.Errors = append(res.Errors, p)
		}
	}
	for _, c := range out.Causes() {
		p := Problem{Field: c.Field, Type: c.Type, Message: c.Message}
		p.Line, p.Column = d.Position(c.Field)
		res.Errors = append(res.Errors, p)
	}
	res.Status = "valid"
	if len(res.Errors) > 0 {
		res.Status = "invalid"
	}
	return res
}

// WriteText writes each problem as FILE:LINE:COLUMN: FIELD: message, then
// a summary line.
func (r Report) WriteText(w io.Writer) {
	for _, res := range r.Results {
		name := res.Kind + "/" + res.Name
		switch res.Status {
		case "skipped":
			fmt.Fprintf(w, "%s:%d: %s: skipped: %s\n", res.File, res.Line, name, res.Reason)
		case "error":
			fmt.Fprintf(w, "%s:%d: %s: error: %s\n", res.File, res.Line, name, res.Reason)
		}
		for _, p := range res.Errors {
			fmt.Fprintf(w, "%s:%d:%d: %s: %s\n", res.File, p.Line, p.Column, p.Field, p.Message)
		}
		for _, p := range res.Warnings {
			fmt.Fprintf(w, "%s:%d:%d: warning: %s: %s\n", res.File, p.Line, p.Column, p.Field, p.Message)
		}
	}
	s := r.Summary
	fmt.Fprintf(w, "%d valid, %d invalid, %d skipped, %d errors\n", s.Valid, s.Invalid, s.Skipped, s.Errors)
}

// WriteJSON writes the report as JSON.
func (r Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
