package cost

import (
	"cmp"
	"fmt"
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
)

// A total at headroomFrom percent of the CRD limit or more is close
// enough to it that one more rule, or a rule made a little dearer, gets
// the CRD refused; the bound suggested brings it to headroomAim percent,
// which leaves as much again for what is added later.
const (
	headroomFrom = 75
	headroomAim  = 50
)

// Headroom is the bound on one field that brings a version's total, near
// or over its limit, to headroomAim percent of the limit or less.
type Headroom struct {
	Field   string `json:"field"`
	Keyword string `json:"keyword"` // maxItems, maxProperties or maxLength
	// Bound is the largest bound on the field that does it; Total the
	// total with it set (estimated again, as the server would).
	Bound int64  `json:"bound"`
	Total uint64 `json:"total"`
	// Aim is the total aimed at: headroomAim percent of the limit.
	Aim uint64 `json:"aim"`
}

// describe says the headroom in a line: "at 93.0% of the CRD limit:
// spec.subsets maxItems: 40 or less brings the total to 49.8% (aiming at
// 50%, room for rules to come)".
func (h Headroom) describe(v Version) string {
	return fmt.Sprintf("at %s of the CRD limit: %s %s: %d or less (+kubebuilder:validation:%s=%d) brings the total to %s of it (aiming at %d%%, to leave room for rules to come)",
		Share(v.Total, v.TotalLimit), h.Field, h.Keyword, h.Bound, marker(h.Keyword), h.Bound, Share(h.Total, v.TotalLimit), headroomAim)
}

// marker is controller-gen's marker for a keyword.
func marker(keyword string) string {
	return string(keyword[0]-'a'+'A') + keyword[1:]
}

// tally is the drivers found for a version's rules, each field once,
// with its effects summed over the rules it drives.
type tally struct {
	cands []candidate
}

func (t *tally) add(c candidate) {
	for i, have := range t.cands {
		if have.driver.Field == c.driver.Field && have.driver.Keyword == c.driver.Keyword {
			t.cands[i].driver.Effect = add(have.driver.Effect, c.driver.Effect)
			return
		}
	}
	c.driver.Bound = nil
	t.cands = append(t.cands, c)
}

// headroomTried is how many drivers, the most effective over all the
// version's rules first, are tried for the headroom: each try estimates
// the whole schema again a few dozen times.
const headroomTried = 3

// headroom finds, for a version whose total is at headroomFrom percent
// of its limit or more, the largest bound on one of its drivers that
// brings the total to headroomAim percent or less, total estimating the
// schema as it is now; nil when the total is lower, or no bound on one
// field does it.
func headroom(v Version, seen tally, total func() uint64) *Headroom {
	if v.Total < v.TotalLimit/100*headroomFrom {
		return nil
	}
	aim := v.TotalLimit / 100 * headroomAim
	cands := slices.Clone(seen.cands)
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(b.driver.Effect, a.driver.Effect) })
	for _, c := range cands[:min(len(cands), headroomTried)] {
		at := func(bound int64) uint64 {
			c.node.edit(func(s *apiextensions.JSONSchemaProps) { setBound(s, c.driver.Keyword, &bound) })
			defer c.node.edit(func(s *apiextensions.JSONSchemaProps) { setBound(s, c.driver.Keyword, nil) })
			return total()
		}
		if b, ok := largestUnder(at, aim); ok {
			return &Headroom{Field: c.driver.Field, Keyword: c.driver.Keyword, Bound: b, Total: at(b), Aim: aim}
		}
	}
	return nil
}

// largestUnder is the largest bound from 1 to 2^31 whose cost is at most
// limit, cost growing with the bound; false when even 1 costs more.
// Doubling from 1 finds the range in as many steps as the answer has
// bits, then halving finds the answer in it.
func largestUnder(cost func(int64) uint64, limit uint64) (int64, bool) {
	if cost(1) > limit {
		return 0, false
	}
	lo, hi := int64(1), int64(2) // lo is under; the answer is below hi
	for cost(hi) <= limit {
		if hi == 1<<31 {
			return hi, true
		}
		lo, hi = hi, hi*2
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if cost(mid) <= limit {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, true
}
