package lsp

import (
	"context"
	"strings"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"go.lsp.dev/protocol"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// document is an open file.
type document struct {
	uri     protocol.DocumentURI
	path    string
	version int32
	text    string
	// lines splits text when first asked for. A document is read by the
	// diagnoser and by hover and completion at once, so the split is made
	// once, whoever asks first.
	lines func() []string

	// What its last check found, for hover and completion: the CRDs in
	// the document, and the cache of the checks of a document with CRDs
	// (its kinds' validators are its own), for the CRDs' JSON it was
	// made for.
	crds     map[schema.GroupKind]*catalog.CRD
	cache    *validate.Cache
	cacheFor string
}

func newDocument(uri protocol.DocumentURI, path string, version int32, text string) *document {
	return &document{uri: uri, path: path, version: version, text: text,
		lines: sync.OnceValue(func() []string { return strings.Split(text, "\n") })}
}

func (d *document) textLines() []string { return d.lines() }

func (s *Server) open(uri protocol.DocumentURI, version int32, text string) {
	s.mu.Lock()
	s.docs[uri] = newDocument(uri, filename(uri), version, text)
	s.mu.Unlock()
	s.diag.want(uri)
}

// change takes a document's new text (the server asks for whole texts).
func (s *Server) change(p protocol.DidChangeTextDocumentParams) error {
	if len(p.ContentChanges) == 0 {
		return nil
	}
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		s.mu.Unlock()
		return rpcError(-32602, "%s is not open", p.TextDocument.URI)
	}
	// Copy on write: a check under way keeps the text it started with.
	// What the last check found stays until the next one replaces it.
	next := newDocument(d.uri, d.path, p.TextDocument.Version, p.ContentChanges[len(p.ContentChanges)-1].Text)
	next.crds, next.cache, next.cacheFor = d.crds, d.cache, d.cacheFor
	s.docs[p.TextDocument.URI] = next
	s.mu.Unlock()
	s.diag.want(p.TextDocument.URI)
	return nil
}

func (s *Server) close(_ context.Context, uri protocol.DocumentURI) {
	s.mu.Lock()
	delete(s.docs, uri)
	s.mu.Unlock()
	s.diag.forget(uri)
	s.notify(protocol.MethodTextDocumentPublishDiagnostics, &protocol.PublishDiagnosticsParams{URI: uri, Diagnostics: []protocol.Diagnostic{}})
}

// doc returns an open document as it is now (nil if not open).
func (s *Server) doc(uri protocol.DocumentURI) *document {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs[uri]
}

// filename is the path of a file: URI, or the URI itself for others.
func filename(uri protocol.DocumentURI) (path string) {
	defer func() {
		if recover() != nil { // uri.Filename panics on URIs that are not file:
			path = string(uri)
		}
	}()
	if strings.HasPrefix(string(uri), "file:") {
		return uri.Filename()
	}
	return string(uri)
}
