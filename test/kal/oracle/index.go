package main

import (
	"go/ast"
	"go/token"
	"go/types"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/packages"
)

// Usage is one place a field or type occurs in the objects of a kind.
type Usage struct {
	Group   string `json:"group"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	// Field is the path in objects (spec.rules[*].name), "" for the
	// object itself; [*] steps into a list's items or a map's values.
	Field string `json:"field"`
}

// Declared is a field of a kind and its declaration: the Go package that
// declares the field, the one that declares its type (of its items, of
// its values), and its +markers.
type Declared struct {
	Usage
	Package     string   `json:"package"`
	TypePackage string   `json:"typePackage,omitempty"`
	Markers     []string `json:"markers,omitempty"`
}

// span is a declaration's source, its doc comment and markers included,
// and what it declares: a field (*types.Var) or a type (*types.TypeName).
type span struct {
	from, to token.Pos
	obj      types.Object
}

// fieldIndex finds what a finding is on and where that occurs.
type fieldIndex struct {
	spans []span
	uses  map[types.Object][]Usage
	// fields are every field of every kind.
	fields []Declared
	// markers are each field's +markers.
	markers map[types.Object][]string
}

// index reads the root packages' declarations and walks each kind's
// type to every field it reaches.
func index(pkgs []*packages.Package) *fieldIndex {
	x := &fieldIndex{uses: map[types.Object][]Usage{}, markers: map[types.Object][]string{}}
	for _, p := range pkgs {
		group, version := "", p.Types.Name()
		for _, f := range p.Syntax {
			for _, line := range markers(f.Comments, token.NoPos, f.Package) {
				if v, ok := strings.CutPrefix(line, "+groupName="); ok {
					group = v
				}
				if v, ok := strings.CutPrefix(line, "+versionName="); ok {
					version = v
				}
			}
		}
		for _, f := range p.Syntax {
			prev := f.Package
			for _, d := range f.Decls {
				g, ok := d.(*ast.GenDecl)
				if ok && g.Tok == token.TYPE {
					before := markers(f.Comments, prev, g.Pos())
					for _, ts := range g.Specs {
						x.declare(p, g, ts.(*ast.TypeSpec), before, Usage{Group: group, Version: version})
					}
				}
				prev = d.End()
			}
		}
	}
	return x
}

// markers are the comment lines between two positions, without "//".
func markers(comments []*ast.CommentGroup, from, to token.Pos) []string {
	var out []string
	for _, cg := range comments {
		if cg.Pos() >= from && cg.End() <= to {
			for _, c := range cg.List {
				out = append(out, strings.TrimSpace(strings.TrimPrefix(c.Text, "//")))
			}
		}
	}
	return out
}

// declare records a type's span and its fields' spans, and walks it when
// it is a kind.
func (x *fieldIndex) declare(p *packages.Package, g *ast.GenDecl, ts *ast.TypeSpec, before []string, base Usage) {
	obj := p.TypesInfo.Defs[ts.Name]
	if obj == nil {
		return
	}
	from := g.Pos()
	if len(g.Specs) > 1 {
		from = ts.Pos()
		if ts.Doc != nil {
			from = ts.Doc.Pos()
		}
	}
	x.spans = append(x.spans, span{from: from, to: ts.End(), obj: obj})
	if st, ok := ts.Type.(*ast.StructType); ok {
		if tst, ok := obj.Type().Underlying().(*types.Struct); ok {
			for _, af := range st.Fields.List {
				from := af.Pos()
				if af.Doc != nil {
					from = af.Doc.Pos()
				}
				for i := range tst.NumFields() {
					if v := tst.Field(i); v.Pos() >= af.Pos() && v.Pos() < af.End() {
						x.spans = append(x.spans, span{from: from, to: af.End(), obj: v})
						if af.Doc != nil {
							for _, c := range af.Doc.List {
								if m := strings.TrimSpace(strings.TrimPrefix(c.Text, "//")); strings.HasPrefix(m, "+") {
									x.markers[v] = append(x.markers[v], m)
								}
							}
						}
					}
				}
			}
		}
	}
	if ts.Doc != nil {
		for _, c := range ts.Doc.List {
			before = append(before, strings.TrimSpace(strings.TrimPrefix(c.Text, "//")))
		}
	}
	// A kind: controller-gen's root marker, or (as cert-manager marks
	// its kinds) deepcopy-gen's runtime.Object interface on a type that
	// is not a list.
	root := slices.Contains(before, "+kubebuilder:object:root=true") ||
		slices.Contains(before, "+k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object") && !strings.HasSuffix(ts.Name.Name, "List")
	if root && !ts.Assign.IsValid() {
		base.Kind = ts.Name.Name
		x.walk(obj.Type(), "", base, map[*types.Named]bool{})
	}
}

// walk records where each named type and field under t occurs, path the
// place of t.
func (x *fieldIndex) walk(t types.Type, path string, base Usage, seen map[*types.Named]bool) {
	switch t := types.Unalias(t).(type) {
	case *types.Pointer:
		x.walk(t.Elem(), path, base, seen)
	case *types.Named:
		origin := t.Origin()
		x.use(origin.Obj(), path, base)
		if seen[origin] || custom(t) {
			return
		}
		seen[origin] = true
		x.walk(t.Underlying(), path, base, seen)
		delete(seen, origin)
	case *types.Slice:
		if b, ok := t.Elem().Underlying().(*types.Basic); ok && b.Kind() == types.Byte {
			return // []byte is a base64 string
		}
		x.walk(t.Elem(), path+"[*]", base, seen)
	case *types.Array:
		x.walk(t.Elem(), path+"[*]", base, seen)
	case *types.Map:
		x.walk(t.Elem(), path+"[*]", base, seen)
	case *types.Struct:
		for i := range t.NumFields() {
			f := t.Field(i)
			name, opts, _ := strings.Cut(reflect.StructTag(t.Tag(i)).Get("json"), ",")
			if name == "-" {
				continue
			}
			if f.Embedded() && name == "" || slices.Contains(strings.Split(opts, ","), "inline") {
				x.use(f.Origin(), path, base)
				x.walk(f.Type(), path, base, seen)
				continue
			}
			if name == "" {
				name = f.Name()
			}
			child := name
			if path != "" {
				child = path + "." + name
			}
			x.use(f.Origin(), child, base)
			at := base
			at.Field = child
			x.fields = append(x.fields, Declared{Usage: at, Package: f.Pkg().Path(), TypePackage: typePackage(f.Type()), Markers: x.markers[f.Origin()]})
			x.walk(f.Type(), child, base, seen)
		}
	}
}

func (x *fieldIndex) use(obj types.Object, path string, base Usage) {
	base.Field = path
	if !slices.Contains(x.uses[obj], base) {
		x.uses[obj] = append(x.uses[obj], base)
	}
}

// custom tells whether a type writes its own JSON or states its own
// OpenAPI schema (metav1.Time, resource.Quantity, intstr.IntOrString):
// its Go fields are not the object's.
func custom(t *types.Named) bool {
	ms := types.NewMethodSet(types.NewPointer(t))
	for _, m := range []string{"MarshalJSON", "OpenAPISchemaType"} {
		if ms.Lookup(t.Obj().Pkg(), m) != nil {
			return true
		}
	}
	return false
}

// finding places a diagnostic on the innermost declaration around it.
func (x *fieldIndex) finding(fset *token.FileSet, linter string, d analysis.Diagnostic) Finding {
	pos := fset.Position(d.Pos)
	f := Finding{Linter: linter, Message: d.Message, File: pos.Filename, Line: pos.Line, Column: pos.Column, Fields: []Usage{}}
	var in *span
	for i, s := range x.spans {
		if s.from <= d.Pos && d.Pos < s.to && (in == nil || s.to-s.from < in.to-in.from) {
			in = &x.spans[i]
		}
	}
	if in == nil {
		return f
	}
	f.On = "type"
	if _, ok := in.obj.(*types.Var); ok {
		f.On = "field"
	}
	if uses := x.uses[in.obj]; uses != nil {
		f.Fields = uses
	}
	return f
}

// typePackage is the package of the named type under pointers, lists and
// maps ("" for a type without a name, or one of Go's).
func typePackage(t types.Type) string {
	for {
		switch u := types.Unalias(t).(type) {
		case *types.Pointer:
			t = u.Elem()
		case *types.Slice:
			t = u.Elem()
		case *types.Map:
			t = u.Elem()
		case *types.Named:
			if u.Obj().Pkg() == nil {
				return ""
			}
			return u.Obj().Pkg().Path()
		default:
			return ""
		}
	}
}
