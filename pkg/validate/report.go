package validate

import (
	"context"

	"github.com/kubectl-crd/kubectl-crd/internal/memo"
	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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
	// Object is the valid object as the server would store it (with
	// Options.Keep).
	Object map[string]any `json:"-"`
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

// OldLookup finds the object a document would update: the live object, or
// one given in a file; nil and no error when there is none (a create).
type OldLookup func(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, gvk schema.GroupVersionKind, namespace, name string) (map[string]any, error)

// Options say how Documents validates.
type Options struct {
	Unknown UnknownFields
	// StrictKinds makes objects of kinds without a CRD invalid, not
	// skipped.
	StrictKinds bool
	// Namespace is where namespaced objects without one go ("default"
	// when empty), as kubectl apply sends them.
	Namespace string
	// Old, when set, turns documents whose object exists into updates.
	Old OldLookup
	// Keep keeps each valid object as the server would store it, in
	// ObjectResult.Object.
	Keep bool
}

// Documents validates every document, several at a time, each CRD
// version's validator built once; results are in input order. Custom
// resources are checked as creates (or, with Options.Old, as updates of
// what exists), CRDs as the server checks a new CRD, documents that could
// not be read are errors. Documents takes the documents over: each one's
// object is checked in place (pruned and defaulted as the server would
// store it) and its decoded forms (Object, JSON, Node) are released once it
// is checked, so that a long input does not stay in memory whole; docs are
// not for use afterwards.
func Documents(ctx context.Context, docs []manifest.Document, lookup Lookup, opts Options) Report {
	results := make([]ObjectResult, len(docs))
	cache := &validators{}
	parallel.Each(len(docs), 1, func(i int) {
		results[i] = one(ctx, &docs[i], lookup, cache, opts)
		docs[i].Object, docs[i].JSON, docs[i].Node = nil, nil, nil
	})
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

// validators builds each CRD version's validator once.
type validators struct {
	m memo.Map[string, *Validator]
}

func (c *validators) get(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Validator, error) {
	return c.m.Get(crd.Name+"/"+version, func() (*Validator, error) { return NewValidator(crd, version) })
}
