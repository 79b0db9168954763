package lsp

import (
	"strings"

	"go.lsp.dev/protocol"
)

// MethodTypeAt is the request for the type and field at a point of a
// document (params: textDocument and position, as for hover): what a
// client's commands pass to kubectl crd explain and sample. The answer
// is null where the point is in no object of a known CRD.
const MethodTypeAt = "kubectl-crd/typeAt"

// TypeAt is the answer of MethodTypeAt.
type TypeAt struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Resource is the CRD's plural and group, as kubectl names a type
	// ("crontabs.stable.example.com").
	Resource string `json:"resource"`
	// Field is the path of the field at the point, dot-separated, the way
	// explain takes it ("spec.cronSpec"; "" at the top).
	Field string `json:"field"`
}

func (s *Server) typeAt(uri protocol.DocumentURI, pos protocol.Position) *TypeAt {
	doc, _, row, c := s.point(uri, pos)
	if doc == nil {
		return nil
	}
	crd, version := s.crdAt(doc, row)
	if crd == nil {
		return nil
	}
	path := fieldPath(c.path())
	if c.key != "" && !(len(path) == 0 && (c.key == "apiVersion" || c.key == "kind")) {
		path = append(path, c.key)
	}
	return &TypeAt{APIVersion: crd.Spec.Group + "/" + version, Kind: crd.Spec.Names.Kind,
		Resource: crd.Spec.Names.Plural + "." + crd.Spec.Group, Field: strings.Join(path, ".")}
}
