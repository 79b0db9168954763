package cost

import (
	"sort"

	celconfig "k8s.io/apiserver/pkg/apis/cel"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/cel/environment"
)

// hasRules tells whether a schema has a rule where walk visits.
func hasRules(s *apiextensions.JSONSchemaProps) bool {
	if len(s.XValidations) > 0 {
		return true
	}
	for _, p := range s.Properties {
		if hasRules(&p) {
			return true
		}
	}
	if a := s.AdditionalProperties; a != nil && a.Schema != nil && hasRules(a.Schema) {
		return true
	}
	return s.Items != nil && s.Items.Schema != nil && hasRules(s.Items.Schema)
}

// node is a schema node and its place: its path in the CRD (as the
// server names it) and as a field of the object (spec.items[*].name).
type node struct {
	schema *apiextensions.JSONSchemaProps
	path   *field.Path
	field  string
	// edit changes the node in the schema (a property's schema is a map
	// value: it is written back).
	edit func(func(*apiextensions.JSONSchemaProps))
	// down is the server's CEL context of the node from its parent's, as
	// the schema is now (nil at the root).
	down func(*validation.CELSchemaContext) *validation.CELSchemaContext
}

// walk visits each node of a schema, with the nodes above it (on: from
// the root to the node) and the server's CEL context for it (nil where
// the server compiles no rules: under not, allOf, anyOf, oneOf).
func walk(n node, ctx *validation.CELSchemaContext, above []node, visit func([]node, *validation.CELSchemaContext)) {
	s := n.schema
	on := append(above[:len(above):len(above)], n)
	visit(on, ctx)
	if a := s.AdditionalProperties; a != nil && a.Schema != nil {
		child := node{schema: a.Schema, path: n.path.Child("additionalProperties"), field: n.field + ".*",
			edit: func(f func(*apiextensions.JSONSchemaProps)) { f(a.Schema) },
			down: func(c *validation.CELSchemaContext) *validation.CELSchemaContext {
				return c.ChildAdditionalPropertiesContext(a.Schema)
			}}
		walk(child, ctx.ChildAdditionalPropertiesContext(a.Schema), on, visit)
	}
	names := make([]string, 0, len(s.Properties))
	for name := range s.Properties {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		prop := s.Properties[name]
		child := node{schema: &prop, path: n.path.Child("properties").Key(name), field: join(n.field, name),
			edit: func(f func(*apiextensions.JSONSchemaProps)) {
				p := s.Properties[name]
				f(&p)
				s.Properties[name] = p
			},
			down: func(c *validation.CELSchemaContext) *validation.CELSchemaContext {
				p := s.Properties[name]
				return c.ChildPropertyContext(&p, name)
			}}
		walk(child, ctx.ChildPropertyContext(&prop, name), on, visit)
	}
	if it := s.Items; it != nil && it.Schema != nil {
		child := node{schema: it.Schema, path: n.path.Child("items"), field: n.field + "[*]",
			edit: func(f func(*apiextensions.JSONSchemaProps)) { f(it.Schema) },
			down: func(c *validation.CELSchemaContext) *validation.CELSchemaContext {
				return c.ChildItemsContext(it.Schema)
			}}
		walk(child, ctx.ChildItemsContext(it.Schema), on, visit)
	}
}

func join(parent, name string) string {
	if parent == "" {
		return name
	}
	return parent + "." + name
}

// compile compiles a node's rules and estimates each one's cost, as the
// server does when it validates the CRD.
func compile(on []node, ctx *validation.CELSchemaContext) []Rule {
	s, path := on[len(on)-1].schema, on[len(on)-1].path
	if len(s.XValidations) == 0 || ctx == nil {
		return nil
	}
	typeInfo, err := ctx.TypeInfo()
	if err != nil || typeInfo == nil {
		return nil
	}
	results, err := cel.Compile(typeInfo.Schema, typeInfo.DeclType, celconfig.PerCallLimit,
		environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion()), cel.NewExpressionsEnvLoader())
	if err != nil {
		return nil
	}
	var out []Rule
	for i, cr := range results {
		at := path.Child("x-kubernetes-validations").Index(i)
		r := Rule{Path: at.Child("rule").String(), Field: orRoot(on[len(on)-1].field), Rule: s.XValidations[i].Rule, Limit: RuleLimit, Estimate: cr.MaxCost,
			Cardinality: cardinality(cr, ctx), on: on, index: i}
		r.Cost = mul(cr.MaxCost, r.Cardinality)
		// The server counts a messageExpression that compiles, once.
		if cr.MessageExpression != nil && cr.MessageExpressionError == nil {
			r.MessageExpressionCost = cr.MessageExpressionMaxCost
			r.MessageExpressionPath = at.Child("messageExpression").String()
		}
		if cr.Error != nil {
			r.Error = cr.Error.Detail
		}
		out = append(out, r)
	}
	return out
}

// cardinality is how many times a rule can run per object, as the
// server counts it: from the bounds on its path where they all have one,
// else the compiler's own worst case.
func cardinality(cr cel.CompilationResult, ctx *validation.CELSchemaContext) uint64 {
	if ctx.MaxCardinality != nil {
		return *ctx.MaxCardinality
	}
	return cr.MaxCardinality
}
