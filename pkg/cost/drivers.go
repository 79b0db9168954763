package cost

import (
	"cmp"
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Driver is a field whose bound changes a rule's estimated cost: an
// array without maxItems, a map without maxProperties, a string without
// maxLength, on the rule's path (how many times it runs) or inside what it
// checks (how much one run costs).
type Driver struct {
	Field   string `json:"field"`
	Keyword string `json:"keyword"` // maxItems, maxProperties or maxLength
	// Effect is how much the field alone adds to the rule's cost when
	// every other driver has a bound of 1: the drivers are listed by it,
	// the largest first.
	Effect uint64 `json:"effect"`
	// Bound, where set, is the largest bound on this field alone that
	// brings the rule under its limit (estimated again with the bound
	// set); nil where it is under already, or no bound on this field
	// alone would do.
	Bound *int64 `json:"bound,omitempty"`
}

// explained is estimate, with each rule's drivers and calls; for a rule
// over its limit, the bound on each driver that would make it fit; with
// opts.Headroom, the version's headroom.
func explained(root *apiextensions.JSONSchemaProps, path *field.Path, opts Options) Version {
	v := estimate(root, path)
	// Drivers are measured where the cost matters (1% of the limit or
	// more): finding them estimates the rules again several times, the
	// rules of one node together.
	var nodes []string
	byNode := map[string][]*Rule{}
	for i := range v.Rules {
		r := &v.Rules[i]
		r.Calls = growingCalls(r.Rule)
		if r.Cost >= r.Limit/100 {
			at := r.on[len(r.on)-1].path.String()
			if byNode[at] == nil {
				nodes = append(nodes, at)
			}
			byNode[at] = append(byNode[at], r)
		}
	}
	var seen tally
	for _, at := range nodes {
		effective(byNode[at], &seen)
	}
	if opts.Headroom {
		v.Headroom = headroom(v, seen, func() uint64 { return estimate(root, path).Total })
	}
	return v
}

// effective sets the drivers of rules of one node: the candidates that
// change each rule's estimated cost, with their effects, the largest
// first. Each is measured with every other candidate bounded to 1, so
// that a field whose cost is hidden by another unbounded one (both
// saturate the estimate) still shows. Each driver found is added to seen.
func effective(rules []*Rule, seen *tally) {
	on := rules[0].on
	cands := drivers(on)
	if len(cands) == 0 {
		return
	}
	one := int64(1)
	set := func(c candidate, bound *int64) {
		c.node.edit(func(s *apiextensions.JSONSchemaProps) { setBound(s, c.driver.Keyword, bound) })
	}
	for _, c := range cands {
		set(c, &one)
	}
	floor := costsWith(on, rules)
	effects := make([][]uint64, len(rules)) // by rule, by candidate
	for k := range effects {
		effects[k] = make([]uint64, len(cands))
	}
	// Unbounding more fields never lowers the estimate, so a group of
	// candidates that adds nothing to a rule holds none of its drivers:
	// only groups that add something to some rule are split, for those
	// rules, and a rule with few drivers among thousands of fields (a
	// pod template's) is estimated a few dozen times, not thousands.
	var measure func(group, active []int)
	measure = func(group, active []int) {
		for _, i := range group {
			set(cands[i], nil)
		}
		costs := costsWith(on, rules)
		for _, i := range group {
			set(cands[i], &one)
		}
		var rising []int
		for _, k := range active {
			if costs[k] > floor[k] {
				rising = append(rising, k)
			}
		}
		switch {
		case len(rising) == 0:
		case len(group) == 1:
			for _, k := range rising {
				effects[k][group[0]] = costs[k] - floor[k]
			}
		default:
			measure(group[:len(group)/2], rising)
			measure(group[len(group)/2:], rising)
		}
	}
	all := make([]int, len(cands))
	for i := range all {
		all[i] = i
	}
	active := make([]int, len(rules))
	for k := range active {
		active[k] = k
	}
	measure(all, active)
	for _, c := range cands {
		set(c, nil)
	}
	for k, r := range rules {
		var found []candidate
		for i, c := range cands {
			if effects[k][i] > 0 {
				c.driver.Effect = effects[k][i]
				found = append(found, c)
			}
		}
		slices.SortStableFunc(found, func(a, b candidate) int { return cmp.Compare(b.driver.Effect, a.driver.Effect) })
		for i, c := range found {
			// The bound that makes the rule fit is searched for the most
			// effective drivers only: each search estimates the rule
			// again dozens of times.
			if r.Over() && i < boundsSearched {
				c.driver.Bound = fitting(r, c)
			}
			r.Drivers = append(r.Drivers, c.driver)
			seen.add(c)
		}
	}
}

// boundsSearched is how many drivers of a rule over its limit get the
// bound that makes it fit, the most effective first (as many as text
// names).
const boundsSearched = 3

// costWith is the rule's cost (times its cardinality) as the schema is
// now: see costsWith.
func costWith(r *Rule) uint64 {
	return costsWith(r.on, []*Rule{r})[0]
}

// costsWith are the costs (times their cardinality) of rules of the node
// at the end of on, as the schema is now: the node's context built again
// down its path, its rules compiled again, as the server would on the
// schema so changed.
func costsWith(on []node, rules []*Rule) []uint64 {
	out := make([]uint64, len(rules))
	ctx := validation.RootCELContext(on[0].schema)
	for _, n := range on[1:] {
		if ctx == nil {
			return out
		}
		ctx = n.down(ctx)
	}
	compiled := compile(on, ctx)
	for k, r := range rules {
		if r.index < len(compiled) {
			out[k] = compiled[r.index].Cost
		}
	}
	return out
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
// rule costs at most its limit, estimating again with each bound tried;
// nil when even a bound of 1 is too much.
func fitting(r *Rule, c candidate) *int64 {
	costAt := func(bound int64) uint64 {
		c.node.edit(func(s *apiextensions.JSONSchemaProps) { setBound(s, c.driver.Keyword, &bound) })
		defer c.node.edit(func(s *apiextensions.JSONSchemaProps) { setBound(s, c.driver.Keyword, nil) })
		return costWith(r)
	}
	if b, ok := largestUnder(costAt, r.Limit); ok {
		return &b
	}
	return nil
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
