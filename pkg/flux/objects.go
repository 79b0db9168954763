package flux

import (
	"fmt"
	"path"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const (
	kindKustomization = "Kustomization"
	kindHelmRelease   = "HelmRelease"
	kustomizeGroup    = "kustomize.toolkit.fluxcd.io"
	helmGroup         = "helm.toolkit.fluxcd.io"
)

// rendered is one object rendered, with where it came from.
type rendered struct {
	obj  *unstructured.Unstructured
	yaml []byte
	// file, line, column and node: where the object was read (the
	// file's node, for its fields' positions; nil when not known).
	file         string
	line, column int
	node         *yaml.Node
	// namespace: where it goes when it names none ("": the command's).
	namespace string
	warnings  []*manifest.Error
}

// fluxObject is a Kustomization or HelmRelease to render.
type fluxObject struct {
	kind         string
	obj          *unstructured.Unstructured
	file         string
	line, column int
	node         *yaml.Node
}

// asFlux is o as a Kustomization or HelmRelease of the versions Flux
// serves, or nil.
func asFlux(o rendered) *fluxObject {
	group, _, _ := strings.Cut(o.obj.GetAPIVersion(), "/")
	kind := o.obj.GetKind()
	if !(group == kustomizeGroup && kind == kindKustomization) && !(group == helmGroup && kind == kindHelmRelease) {
		return nil
	}
	return &fluxObject{kind: kind, obj: o.obj, file: o.file, line: o.line, column: o.column, node: o.node}
}

// namespace is the object's, or "default" where kubectl apply would put
// one that names none.
func (f *fluxObject) namespace() string {
	if ns := f.obj.GetNamespace(); ns != "" {
		return ns
	}
	return "default"
}

func (f *fluxObject) key() string { return f.kind + "/" + f.namespace() + "/" + f.obj.GetName() }

// via names f in messages: KIND NAMESPACE/NAME (FILE:LINE).
func (f *fluxObject) via() string {
	where := f.file
	if f.line > 0 {
		where = fmt.Sprintf("%s:%d", f.file, f.line)
	}
	return fmt.Sprintf("%s %s/%s (%s)", f.kind, f.namespace(), f.obj.GetName(), where)
}

// at is the file:line:column of f's field (or of its nearest ancestor).
func (f *fluxObject) at(field ...string) (line, column int) {
	d := manifest.Document{Line: f.line, Column: f.column, Node: f.node}
	return d.Position(strings.Join(field, "."))
}

func (f *fluxObject) has(field ...string) bool {
	_, ok, _ := unstructured.NestedFieldNoCopy(f.obj.Object, field...)
	return ok
}

func (f *fluxObject) str(field ...string) string {
	s, _, _ := unstructured.NestedString(f.obj.Object, field...)
	return s
}

func (f *fluxObject) suspended() bool {
	b, _, _ := unstructured.NestedBool(f.obj.Object, "spec", "suspend")
	return b
}

// path is a Kustomization's spec.path, cleaned, relative to its source's
// root ("" and "./" are the root).
func (f *fluxObject) path() string {
	return path.Clean("/" + f.str("spec", "path"))[1:]
}

// sourceRef is the source f's files come from: KIND/NAMESPACE/NAME (the
// namespace f's own when the reference names none).
func (f *fluxObject) sourceRef() string {
	field := []string{"spec", "sourceRef"}
	if f.kind == kindHelmRelease {
		field = []string{"spec", "chart", "spec", "sourceRef"}
	}
	ref, _, _ := unstructured.NestedStringMap(f.obj.Object, field...)
	ns := ref["namespace"]
	if ns == "" {
		ns = f.namespace()
	}
	return ref["kind"] + "/" + ns + "/" + ref["name"]
}
