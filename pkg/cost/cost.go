// Package cost estimates the cost of a CRD's CEL rules (x-kubernetes-
// validations) as the API server does when it is given the CRD: the same
// walk of the schema, the same cardinality (how many times a rule can run
// per object, from the maxItems and maxProperties on its path), the same
// compiler and cost estimator (apiextensions' cel.Compile, in the CEL
// environment of the Kubernetes version answered as), the same limits;
// then says what drives a cost, and which bound would make a rule fit,
// by estimating again with the bound set.
package cost

import (
	"sort"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The server's limits: a rule's estimated cost (times its cardinality),
// and the total over a schema.
const (
	RuleLimit = validation.StaticEstimatedCostLimit
	CRDLimit  = validation.StaticEstimatedCRDCostLimit
)

// Rule is one rule's estimate.
type Rule struct {
	// Path is the rule's place as the server names it in its errors
	// (spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule).
	Path string `json:"path"`
	// Field is the field the rule is on (spec.items[*]).
	Field string `json:"field"`
	Rule  string `json:"rule"`
	// Cost is what the server compares with the per-rule limit: the
	// rule's estimated cost times its cardinality.
	Cost uint64 `json:"cost"`
	// Limit is the per-rule limit.
	Limit uint64 `json:"limit"`
	// Estimate is the cost of one evaluation; Cardinality how many times
	// the rule can run per object (math.MaxUint64: unbounded).
	Estimate    uint64 `json:"estimate"`
	Cardinality uint64 `json:"cardinality"`
	// MessageExpressionCost is the messageExpression's estimated cost.
	// The server compares it with the per-rule limit as it is, not times
	// the cardinality, and adds it to the total once.
	MessageExpressionCost uint64 `json:"messageExpressionCost,omitempty"`
	// MessageExpressionPath is the messageExpression's place as the server
	// names it ("" without one).
	MessageExpressionPath string `json:"messageExpressionPath,omitempty"`
	// Error is the rule's compile error, if it does not compile.
	Error string `json:"error,omitempty"`
	// Drivers are the unbounded fields that make the cost what it is.
	Drivers []Driver `json:"drivers,omitempty"`
	// Calls are the rule's calls whose cost grows with their input.
	Calls []string `json:"calls,omitempty"`
	// Contributes: the total is over its limit, and the server names this
	// rule among the (at most four) most expensive that made it so;
	// MessageExpressionContributes: it names the rule's messageExpression.
	Contributes                  bool `json:"contributes,omitempty"`
	MessageExpressionContributes bool `json:"messageExpressionContributes,omitempty"`

	// on is where the rule is: its node, and the nodes above it; index
	// its place among the node's rules.
	on    []node
	index int
}

// Over tells whether the server refuses the rule for its cost.
func (r Rule) Over() bool { return r.Cost > r.Limit }

// MessageExpressionOver tells whether the server refuses the rule's
// messageExpression for its cost.
func (r Rule) MessageExpressionOver() bool { return r.MessageExpressionCost > r.Limit }

// Version is the estimate of one version's schema (a CRD whose versions
// share one schema is one estimate, given for each).
type Version struct {
	Name string `json:"name"`
	// Schema is the schema's place as the server names it in its
	// refusal of the total (spec.versions[0].schema.openAPIV3Schema).
	Schema string `json:"schema,omitempty"`
	// Total is the sum the server compares with the per-CRD limit.
	Total      uint64 `json:"total"`
	TotalLimit uint64 `json:"totalLimit"`
	// Rules, the most expensive first.
	Rules []Rule `json:"rules"`
	// Headroom, for a total near its limit or over it, is a bound that
	// brings it well under.
	Headroom *Headroom `json:"headroom,omitempty"`
}

// Over tells whether the server refuses the schema for its total cost.
func (v Version) Over() bool { return v.Total > v.TotalLimit }

// CRD is the estimate of a CRD.
type CRD struct {
	Name     string    `json:"name"`
	Versions []Version `json:"versions"`
}

// Estimate estimates every rule of every version of crd, in the CEL
// environment of the Kubernetes version the process answers as.
func Estimate(crd *apiextensionsv1.CustomResourceDefinition) (CRD, error) {
	return EstimateWith(crd, Options{})
}

// Options are what an estimate finds beyond the server's answer.
type Options struct {
	// Headroom: for a total near its limit, search the bound that brings
	// it well under (see Headroom). It estimates the whole schema again a
	// few dozen times, so only the cost report asks for it.
	Headroom bool
}

// EstimateWith is Estimate, finding what opts asks for too.
func EstimateWith(crd *apiextensionsv1.CustomResourceDefinition, opts Options) (CRD, error) {
	internal := &apiextensions.CustomResourceDefinition{}
	if err := catalog.Scheme().Convert(crd, internal, nil); err != nil {
		return CRD{}, err
	}
	out := CRD{Name: crd.Name}
	if v := internal.Spec.Validation; v != nil && v.OpenAPIV3Schema != nil {
		// One schema for every version, as the server validates it.
		est := explained(v.OpenAPIV3Schema, field.NewPath("spec", "validation", "openAPIV3Schema"), opts)
		for _, ver := range internal.Spec.Versions {
			e := est
			e.Name = ver.Name
			out.Versions = append(out.Versions, e)
		}
		return out, nil
	}
	for i, ver := range internal.Spec.Versions {
		e := Version{Name: ver.Name, TotalLimit: CRDLimit, Rules: []Rule{}}
		if ver.Schema != nil && ver.Schema.OpenAPIV3Schema != nil {
			path := field.NewPath("spec", "versions").Index(i).Child("schema", "openAPIV3Schema")
			if j := sameSchema(internal.Spec.Versions[:i], ver.Schema.OpenAPIV3Schema); j >= 0 {
				// Versions often share one schema (v1beta1 kept beside v1):
				// the estimate is the same, only the places are not.
				e = moved(out.Versions[j], path.String())
			} else {
				e = explained(ver.Schema.OpenAPIV3Schema, path, opts)
			}
			e.Name = ver.Name
		}
		out.Versions = append(out.Versions, e)
	}
	return out, nil
}

// sameSchema is the index of the first of versions whose schema equals s,
// or -1.
func sameSchema(versions []apiextensions.CustomResourceDefinitionVersion, s *apiextensions.JSONSchemaProps) int {
	for i, v := range versions {
		if v.Schema != nil && apiequality.Semantic.DeepEqual(v.Schema.OpenAPIV3Schema, s) {
			return i
		}
	}
	return -1
}

// moved is a version's estimate for the same schema at another place.
func moved(v Version, schema string) Version {
	out := v
	out.Schema = schema
	out.Rules = make([]Rule, len(v.Rules))
	for i, r := range v.Rules {
		r.Path = schema + strings.TrimPrefix(r.Path, v.Schema)
		if r.MessageExpressionPath != "" {
			r.MessageExpressionPath = schema + strings.TrimPrefix(r.MessageExpressionPath, v.Schema)
		}
		out.Rules[i] = r
	}
	return out
}

// estimate walks a schema as the server's CRD validation does, compiling
// the rules of each node where the server does.
func estimate(root *apiextensions.JSONSchemaProps, path *field.Path) Version {
	v := Version{Schema: path.String(), TotalLimit: CRDLimit, Rules: []Rule{}}
	if !hasRules(root) {
		return v // most schemas: the walk's contexts would be built for nothing
	}
	top := node{schema: root, path: path, edit: func(f func(*apiextensions.JSONSchemaProps)) { f(root) }}
	walk(top, validation.RootCELContext(root), nil, func(on []node, ctx *validation.CELSchemaContext) {
		rules := compile(on, ctx)
		for _, r := range rules {
			v.Total = add(v.Total, r.Cost)
			v.Total = add(v.Total, r.MessageExpressionCost)
		}
		v.Rules = append(v.Rules, rules...)
	})
	if v.Over() {
		markContributors(v.Rules)
	}
	sort.SliceStable(v.Rules, func(i, j int) bool { return v.Rules[i].Cost > v.Rules[j].Cost })
	return v
}

// markContributors marks the expressions the server names when it
// refuses a total: the four most expensive of those costing at least 1%
// of the limit. Between equal costs the server takes the one it meets
// first, and it walks a schema's properties in a Go map's order, so its
// choice among ties is not fixed; here ties go in walk order (properties
// by name; a rule before its messageExpression), the same every run.
func markContributors(rules []Rule) {
	type expression struct {
		rule    int
		message bool
		cost    uint64
	}
	var top []expression
	for i, r := range rules {
		if r.Cost >= CRDLimit/100 {
			top = append(top, expression{i, false, r.Cost})
		}
		if r.MessageExpressionPath != "" && r.MessageExpressionCost >= CRDLimit/100 {
			top = append(top, expression{i, true, r.MessageExpressionCost})
		}
	}
	sort.SliceStable(top, func(a, b int) bool { return top[a].cost > top[b].cost })
	for k, e := range top {
		if k == 4 {
			break
		}
		if e.message {
			rules[e.rule].MessageExpressionContributes = true
		} else {
			rules[e.rule].Contributes = true
		}
	}
}
