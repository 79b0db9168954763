package validate

import (
	"context"
	"regexp"
	"sync"

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
	catalog *catalog.Catalog
	// decoded are the documents of the first walk's chunks, kept for the
	// check when the input is held in memory (see inputCRDs).
	decoded map[manifest.Place][]manifest.Document
	// crdErr: the first CRD of the input that does not decode.
	crdErr error
}

// NewPipeline puts input together with cat. cat itself is not changed:
// a long-lived front end checks every input over the same one. Two
// different CRDs of the input for one kind are an error.
func NewPipeline(cat *catalog.Catalog, input Input) (*Pipeline, error) {
	placed, decoded, crdErr, err := inputCRDs(input)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{input: input, placed: placed, decoded: decoded, crdErr: crdErr}
	if p.catalog, err = cat.WithInput(p.CRDs()...); err != nil {
		return nil, err
	}
	return p, nil
}

// CRDs are the input's own CRDs, in input order.
func (p *Pipeline) CRDs() []*catalog.CRD {
	crds := make([]*catalog.CRD, len(p.placed))
	for i, c := range p.placed {
		crds[i] = c.CRD
	}
	return crds
}

// InputCRDs are the input's own CRDs with the documents they were decoded
// from (their places), in input order: what the language server places
// their rules' costs with, without reading the text again.
func (p *Pipeline) InputCRDs() []catalog.InputCRD { return p.placed }

// Catalog is the input's CRDs before the catalog's: where the input's
// objects find their CRD.
func (p *Pipeline) Catalog() *catalog.Catalog { return p.catalog }

// Check checks every document of the input with opts (see documents).
func (p *Pipeline) Check(ctx context.Context, opts Options) (Report, error) {
	var kinds Kinds = p.catalog
	if opts.Found != nil {
		kinds = observed{Kinds: p.catalog, found: opts.Found}
	}
	return documents(ctx, p.walked(), kinds, opts)
}

// Objects are the input's documents that are not CRDs, in input order:
// what convert reads. A document that cannot be read is the error, as is
// then a CRD of the input that does not decode.
func (p *Pipeline) Objects() ([]*manifest.Document, error) {
	var objects []*manifest.Document
	var bad error
	err := p.walked().Each(func(c manifest.Chunk) bool {
		for _, d := range c.Decode() {
			switch {
			case d.Err != nil:
				bad = d.Err
				return false
			case !catalog.IsCRD(d.TypeMeta()):
				objects = append(objects, &d)
			}
		}
		return true
	})
	switch {
	case err != nil:
		return nil, err
	case bad != nil:
		return nil, bad
	case p.crdErr != nil:
		return nil, p.crdErr
	}
	return objects, nil
}

// namespaceKind matches the text of a document that may be a Namespace
// (or a List that holds one), in YAML or JSON: the chunks worth decoding
// when the input's Namespaces are looked for. Compiled when first used.
var namespaceKind = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`"?kind"?\s*:\s*["']?Namespace\b`)
})

// namespaceDocuments are the input's documents of kind Namespace (v1),
// in input order: what kubectl apply of the input would create before
// its other objects. Documents that cannot be read are left out (their
// own results say why).
func (p *Pipeline) namespaceDocuments() ([]*manifest.Document, error) {
	var out []*manifest.Document
	err := eachMentioning(p.walked(), "Namespace", func(c manifest.Chunk) bool {
		if !c.Matches(namespaceKind()) {
			return true
		}
		for _, d := range c.Decode() {
			if d.Err == nil && d.TypeMeta() == (manifest.TypeMeta{APIVersion: "v1", Kind: "Namespace"}) {
				out = append(out, &d)
			}
		}
		return true
	})
	return out, err
}

// walked is the input for a walk after the first: with the documents the
// first decoded, where kept.
func (p *Pipeline) walked() Input {
	if len(p.decoded) > 0 {
		return withDecoded{p.input, p.decoded}
	}
	return p.input
}

// withDecoded is an input whose chunks a first walk decoded come with
// their documents.
type withDecoded struct {
	Input
	docs map[manifest.Place][]manifest.Document
}

func (in withDecoded) Each(f func(manifest.Chunk) bool) error {
	return in.Input.Each(func(c manifest.Chunk) bool {
		if docs, ok := in.docs[c.Place()]; ok {
			c = c.WithDocuments(docs)
		}
		return f(c)
	})
}

// inputCRDs decodes the CRDs of the input: a walk that reads and decodes
// only the documents that mention the kind. A CRD that does not decode is
// left out: its own result says why. When the input is held in memory
// (the editor's text, standard input), the documents decoded are
// returned too, and the check takes them instead of decoding them again;
// from files they are read again when checked (keeping them would hold
// every CRD of a directory's files at once).
func inputCRDs(input Input) (crds []catalog.InputCRD, decoded map[manifest.Place][]manifest.Document, crdErr, err error) {
	if in, ok := input.(interface{ InMemory() bool }); ok && in.InMemory() {
		decoded = map[manifest.Place][]manifest.Document{}
	}
	err = eachMentioning(input, "CustomResourceDefinition", func(chunk manifest.Chunk) bool {
		docs := chunk.Decode()
		found, _, bad := catalog.Split(docs)
		crds = append(crds, found...)
		if crdErr == nil {
			crdErr = bad
		}
		if decoded != nil {
			decoded[chunk.Place()] = docs
		}
		return true
	})
	return crds, decoded, crdErr, err
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
