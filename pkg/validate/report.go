package validate

import (
	"context"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/internal/memo"
	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Kinds finds the CRD that defines a kind (a catalog.Catalog does): nil
// and no error when none does, an error when it cannot tell.
type Kinds interface {
	ForKind(ctx context.Context, gk schema.GroupKind) (*catalog.CRD, error)
}

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
// not be read are errors. The CRD of every kind in the input is found
// first, one kind after the other; an error finding one (a cluster that
// cannot be asked) is returned, and nothing is checked. Documents takes
// each document's object (documents keep their JSON and positions).
func Documents(ctx context.Context, docs []manifest.Document, kinds Kinds, opts Options) (Report, error) {
	crds := map[schema.GroupKind]*catalog.CRD{}
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			continue
		}
		tm := d.TypeMeta()
		gv, err := schema.ParseGroupVersion(tm.APIVersion)
		if err != nil || tm.Kind == "" || catalog.IsCRD(tm) {
			continue
		}
		gk := gv.WithKind(tm.Kind).GroupKind()
		if _, done := crds[gk]; done {
			continue
		}
		if crds[gk], err = kinds.ForKind(ctx, gk); err != nil {
			return Report{}, fmt.Errorf("finding the CustomResourceDefinition of %s (at %s): %w", gk, d.Pos(), err)
		}
	}
	results := make([]ObjectResult, len(docs))
	cache := &validators{}
	parallel.Each(len(docs), 1, func(i int) {
		results[i] = one(ctx, &docs[i], crds, cache, opts)
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
	return r, nil
}

// validators builds each CRD version's validator once.
type validators struct {
	m memo.Map[string, *Validator]
}

func (c *validators) get(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Validator, error) {
	return c.m.Get(crd.Name+"/"+version, func() (*Validator, error) { return NewValidator(crd, version) })
}
