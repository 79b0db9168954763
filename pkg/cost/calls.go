package cost

import (
	"slices"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/parser"
)

// growing are CEL's calls whose cost grows with their input: the
// macros that iterate, and string and list functions.
var growing = []string{"all", "exists", "exists_one", "map", "filter", "sum", "sort", "sortBy", "distinct", "flatten",
	"matches", "contains", "startsWith", "endsWith", "split", "join", "replace", "lowerAscii", "upperAscii",
	"indexOf", "lastIndexOf", "find", "findAll", "substring", "trim", "format", "isSorted"}

// growingCalls are the rule's calls whose cost grows with their input,
// each once, in the order of the rule ("" on a rule that does not parse:
// its compile error says why).
func growingCalls(rule string) []string {
	p, err := parser.NewParser(parser.Macros(parser.AllMacros...), parser.PopulateMacroCalls(true))
	if err != nil {
		return nil
	}
	parsed, iss := p.Parse(newSource(rule))
	if iss != nil && len(iss.GetErrors()) > 0 {
		return nil
	}
	var found []string
	note := func(name string) {
		if slices.Contains(growing, name) && !slices.Contains(found, name) {
			found = append(found, name)
		}
	}
	// The macro calls come as a map: visited by id, in the order they
	// were parsed, so that the same rule always lists the same calls in
	// the same order.
	macros := parsed.SourceInfo().MacroCalls()
	ids := make([]int64, 0, len(macros))
	for id := range macros {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		if m := macros[id]; m.Kind() == ast.CallKind {
			note(m.AsCall().FunctionName())
		}
	}
	visitCalls(parsed.Expr(), note)
	return found
}

func newSource(rule string) common.Source { return common.NewTextSource(rule) }

// visitCalls passes note the name of every call in e.
func visitCalls(e ast.Expr, note func(string)) {
	if e == nil {
		return
	}
	switch e.Kind() {
	case ast.CallKind:
		c := e.AsCall()
		note(c.FunctionName())
		if c.IsMemberFunction() {
			visitCalls(c.Target(), note)
		}
		for _, a := range c.Args() {
			visitCalls(a, note)
		}
	case ast.ComprehensionKind:
		c := e.AsComprehension()
		for _, x := range []ast.Expr{c.IterRange(), c.AccuInit(), c.LoopCondition(), c.LoopStep(), c.Result()} {
			visitCalls(x, note)
		}
	case ast.ListKind:
		for _, x := range e.AsList().Elements() {
			visitCalls(x, note)
		}
	case ast.MapKind:
		for _, entry := range e.AsMap().Entries() {
			visitCalls(entry.AsMapEntry().Key(), note)
			visitCalls(entry.AsMapEntry().Value(), note)
		}
	case ast.SelectKind:
		visitCalls(e.AsSelect().Operand(), note)
	case ast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			visitCalls(f.AsStructField().Value(), note)
		}
	}
}
