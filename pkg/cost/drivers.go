package cost

import (
	"slices"

	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/parser"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Driver is a field without the bound that would limit a rule's cost:
// an array without maxItems, a map without maxProperties, a string
// without maxLength, on the rule's path (how many times it runs) or
// inside what it checks (how much one run costs).
type Driver struct {
	Field   string `json:"field"`
	Keyword string `json:"keyword"` // maxItems, maxProperties or maxLength
	// Bound, where set, is the largest bound on this field alone that
	// brings the rule under its limit (estimated again with the bound
	// set); nil where it is under already, or no bound on this field
	// alone would do.
	Bound *int64 `json:"bound,omitempty"`
}

// explained is estimate, with each rule's drivers and calls; for a rule
// over its limit, the bound on each driver that would make it fit.
func explained(root *apiextensions.JSONSchemaProps, path *field.Path) Version {
	v := estimate(root, path)
	for i := range v.Rules {
		r := &v.Rules[i]
		r.Calls = growingCalls(r.Rule)
		for _, d := range drivers(r.on) {
			if r.Over() {
				d.driver.Bound = fitting(root, path, r.Path, d)
			}
			r.Drivers = append(r.Drivers, d.driver)
		}
	}
	return v
}

// candidate is a driver with the node it bounds.
type candidate struct {
	driver Driver
	node   node
}

// drivers are the unbounded arrays and maps on a rule's path, and the
// unbounded arrays, maps and strings inside its node.
func drivers(on []node) []candidate {
	var out []candidate
	for _, n := range on[:len(on)-1] {
		if k := unboundedCollection(n.schema); k != "" {
			out = append(out, candidate{Driver{Field: n.field, Keyword: k}, n})
		}
	}
	self := on[len(on)-1]
	walk(self, nil, nil, func(in []node, _ *validation.CELSchemaContext) {
		n := in[len(in)-1]
		k := unboundedCollection(n.schema)
		if k == "" && n.schema.Type == "string" && n.schema.MaxLength == nil && len(n.schema.Enum) == 0 {
			k = "maxLength"
		}
		if k != "" {
			out = append(out, candidate{Driver{Field: orRoot(n.field), Keyword: k}, n})
		}
	})
	return out
}

func orRoot(f string) string {
	if f == "" {
		return "(the object)"
	}
	return f
}

// unboundedCollection is the keyword an array or map lacks to bound its
// size ("" when it has it, or is neither).
func unboundedCollection(s *apiextensions.JSONSchemaProps) string {
	switch {
	case s.Type == "array" && s.MaxItems == nil:
		return "maxItems"
	case s.Type == "object" && s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil && s.MaxProperties == nil:
		return "maxProperties"
	}
	return ""
}

// fitting finds the largest bound on the candidate alone under which the
// rule at rulePath costs at most its limit, estimating again with each
// bound tried; nil when even a bound of 1 is too much.
func fitting(root *apiextensions.JSONSchemaProps, path *field.Path, rulePath string, c candidate) *int64 {
	costAt := func(bound int64) uint64 {
		c.node.edit(func(s *apiextensions.JSONSchemaProps) { setBound(s, c.driver.Keyword, &bound) })
		defer c.node.edit(func(s *apiextensions.JSONSchemaProps) { setBound(s, c.driver.Keyword, nil) })
		for _, r := range estimate(root, path).Rules {
			if r.Path == rulePath {
				return r.Cost
			}
		}
		return 0
	}
	if costAt(1) > RuleLimit {
		return nil
	}
	lo, hi := int64(1), int64(1)<<31 // lo fits; the answer is below hi
	if costAt(hi) <= RuleLimit {
		return &hi
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if costAt(mid) <= RuleLimit {
			lo = mid
		} else {
			hi = mid
		}
	}
	return &lo
}

func setBound(s *apiextensions.JSONSchemaProps, keyword string, bound *int64) {
	switch keyword {
	case "maxItems":
		s.MaxItems = bound
	case "maxProperties":
		s.MaxProperties = bound
	case "maxLength":
		s.MaxLength = bound
	}
}

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
	for _, m := range parsed.SourceInfo().MacroCalls() {
		if m.Kind() == ast.CallKind {
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
