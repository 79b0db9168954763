package schemaproof_test

import (
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
)

// choices is a stream of choices, from a fuzzer's bytes or a seeded
// generator; an empty stream chooses 0.
type choices interface{ next() int }

type byteChoices []byte

func (b *byteChoices) next() int {
	if len(*b) == 0 {
		return 0
	}
	c := int((*b)[0])
	*b = (*b)[1:]
	return c
}

// slot is a place in a value that a mutation can change.
type slot struct {
	get func() any
	set func(any)
	del func() // nil where nothing can be removed
	add func(string, any)
}

// slots lists every place in v (a decoded JSON value), in a fixed order.
func slots(v any, into []slot) []slot {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			into = append(into, slot{
				get: func() any { return x[k] },
				set: func(n any) { x[k] = n },
				del: func() { delete(x, k) },
				add: func(name string, n any) {
					if m, ok := x[k].(map[string]any); ok {
						m[name] = n
					}
				},
			})
			into = slots(x[k], into)
		}
	case []any:
		for i := range x {
			into = append(into, slot{
				get: func() any { return x[i] },
				set: func(n any) { x[i] = n },
				add: func(name string, n any) {
					if m, ok := x[i].(map[string]any); ok {
						m[name] = n
					}
				},
			})
			into = slots(x[i], into)
		}
	}
	return into
}

// mutate changes a copy of obj in up to rounds places, each chosen by c,
// in the ways that make objects invalid: type flips, nulls, numbers out of
// bounds and ranges, strings too long or off their enum and pattern,
// fields unknown or missing, list items repeated (duplicate keys), values
// nested deep.
func mutate(obj map[string]any, c choices, rounds int) map[string]any {
	out := runtime.DeepCopyJSON(obj)
	for range rounds {
		all := slots(out, nil)
		if len(all) == 0 {
			return out
		}
		s := all[(c.next()<<8|c.next())%len(all)]
		old := s.get()
		switch c.next() % 16 {
		case 0:
			s.set(nil)
		case 1:
			s.set("x")
		case 2:
			s.set(int64(1) << 31) // past int32
		case 3:
			s.set(int64(-1))
		case 4:
			s.set(1.5)
		case 5:
			s.set(true)
		case 6:
			s.set(map[string]any{})
		case 7:
			s.set([]any{})
		case 8:
			s.set(strings.Repeat("a", 64+c.next()*64))
		case 9:
			if s.del != nil {
				s.del()
			}
		case 10:
			s.add("unknownField", "x")
		case 11:
			if l, ok := old.([]any); ok && len(l) > 0 {
				s.set(append(l, runtime.DeepCopyJSONValue(l[0])))
			}
		case 12:
			v := any(runtime.DeepCopyJSONValue(old))
			for range 1 + c.next()%8 {
				v = map[string]any{"nested": v}
			}
			s.set(v)
		case 13:
			if str, ok := old.(string); ok {
				s.set(str + "-not-in-enum !")
			} else {
				s.set("not-in-enum")
			}
		case 14:
			switch n := old.(type) {
			case int64:
				s.set(n * 1000003)
			case float64:
				s.set(n * -1e300)
			default:
				s.set(int64(0))
			}
		case 15:
			s.set([]any{old})
		}
	}
	return out
}
