package validate

import (
	"context"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Pipeline is one input put together for its check, the one way every
// front end puts it together (validate, lsp, convert): the input's own
// CRDs, decoded by a first walk before any object is read, are put before
// the catalog's, so that an object beside its CRD is checked against it
// wherever it stands, as kubectl apply would create the CRD first.
type Pipeline struct {
	input   Input
	placed  []catalog.InputCRD
	crds    []*catalog.CRD
	catalog *catalog.Catalog
}

// NewPipeline puts input together with cat. cat itself is not changed:
// a long-lived front end checks every input over the same one. Two
// different CRDs of the input for one kind are an error.
func NewPipeline(cat *catalog.Catalog, input Input) (*Pipeline, error) {
	placed, err := inputCRDs(input)
	if err != nil {
		return nil, err
	}
	crds := make([]*catalog.CRD, len(placed))
	for i, c := range placed {
		crds[i] = c.CRD
	}
	withInput, err := cat.WithInput(crds...)
	if err != nil {
		return nil, err
	}
	return &Pipeline{input: input, placed: placed, crds: crds, catalog: withInput}, nil
}

// CRDs are the input's own CRDs, in input order.
func (p *Pipeline) CRDs() []*catalog.CRD { return p.crds }

// InputCRDs are the input's own CRDs with the documents they were decoded
// from (their places), in input order: what the language server places
// their rules' costs with, without reading the text again.
func (p *Pipeline) InputCRDs() []catalog.InputCRD { return p.placed }

// Catalog is the input's CRDs before the catalog's: where the input's
// objects find their CRD.
func (p *Pipeline) Catalog() *catalog.Catalog { return p.catalog }

// Check checks every document of the input with opts (see Documents).
func (p *Pipeline) Check(ctx context.Context, opts Options) (Report, error) {
	var kinds Kinds = p.catalog
	if opts.Found != nil {
		kinds = observed{Kinds: p.catalog, found: opts.Found}
	}
	return Documents(ctx, p.input, kinds, opts)
}

// inputCRDs decodes the CRDs of the input: a walk that reads and decodes
// only the documents that mention the kind (they are read again when they
// are checked). A CRD that does not decode is left out: its own result
// says why.
func inputCRDs(input Input) ([]catalog.InputCRD, error) {
	var crds []catalog.InputCRD
	err := eachMentioning(input, "CustomResourceDefinition", func(chunk manifest.Chunk) bool {
		found, _, _ := catalog.Split(chunk.Decode())
		crds = append(crds, found...)
		return true
	})
	return crds, err
}

// observed is Kinds that tells found of each CRD a kind is found in.
type observed struct {
	Kinds
	found func(*catalog.CRD)
}

func (o observed) ForKind(ctx context.Context, gk schema.GroupKind) (*catalog.CRD, error) {
	crd, err := o.Kinds.ForKind(ctx, gk)
	if crd != nil {
		o.found(crd)
	}
	return crd, err
}
