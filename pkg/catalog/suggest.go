package catalog

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// UnknownTypeError is kubectl's error for a TYPE no resource matches, with
// the names of resources that are close to it.
type UnknownTypeError struct {
	// Msg is kubectl's message ("the server doesn't have a resource type ...").
	Msg         string
	Suggestions []string
}

func (e *UnknownTypeError) Error() string {
	if len(e.Suggestions) == 0 {
		return e.Msg
	}
	return e.Msg + "\nDid you mean " + strings.Join(e.Suggestions, " or ") + "?"
}

// UnknownType is kubectl's error for a TYPE no resource matches, with the
// close names.
func (c *Catalog) UnknownType(resource string) error {
	return &UnknownTypeError{Msg: fmt.Sprintf("the server doesn't have a resource type %q", resource), Suggestions: c.suggest(resource)}
}

// maxSuggestions bounds the close matches listed.
const maxSuggestions = 3

// suggest returns the resources (as plural.group) one of whose names
// (plural, singular, kind, short names) is within a small edit distance of
// the resource part of arg.
func (c *Catalog) suggest(arg string) []string {
	_, gr := schema.ParseResourceArg(arg)
	want := strings.ToLower(gr.Resource)
	_, lists, _ := c.source.Discovery().ServerGroupsAndResources()
	best := map[string]int{}
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil || gv.Group == "" {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			names := append([]string{r.Name, r.SingularName, strings.ToLower(r.Kind)}, r.ShortNames...)
			for _, n := range names {
				if n == "" {
					continue
				}
				d := editDistance(want, n)
				if d > maxDistance(want) {
					continue
				}
				key := r.Name + "." + gv.Group
				if old, ok := best[key]; !ok || d < old {
					best[key] = d
				}
			}
		}
	}
	return closestFirst(best)
}

func maxDistance(s string) int {
	switch {
	case len(s) <= 3:
		return 1
	case len(s) <= 8:
		return 2
	default:
		return 3
	}
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// Closest are the names among candidates within a small edit distance of
// want (case aside), closest first, at most a few.
func Closest(want string, candidates []string) []string {
	best := map[string]int{}
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(want), strings.ToLower(c)); d <= maxDistance(want) {
			best[c] = d
		}
	}
	return closestFirst(best)
}

// closestFirst are the names of distance, nearest first (then by name),
// at most a few.
func closestFirst(distance map[string]int) []string {
	out := make([]string, 0, len(distance))
	for name := range distance {
		out = append(out, name)
	}
	sort.Slice(out, func(i, j int) bool {
		if distance[out[i]] != distance[out[j]] {
			return distance[out[i]] < distance[out[j]]
		}
		return out[i] < out[j]
	})
	if len(out) > maxSuggestions {
		out = out[:maxSuggestions]
	}
	return out
}
