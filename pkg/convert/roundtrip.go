package convert

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"

	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Trip is one round trip of an object through other versions and back.
type Trip struct {
	// Versions are the versions in order, the object's own first and last.
	Versions []string
	// Changes are what the object is back with, against what it was.
	Changes []Change
	// Err is the conversion that failed (then Changes is empty).
	Err error
}

// Change is one field a round trip changed.
type Change struct {
	// Path is the field, as the server writes field paths.
	Path string `json:"path"`
	// What is "lost" (the field is gone), "changed" or "added".
	What string `json:"what"`
	// Before and After are the values (none where the field is missing).
	Before any `json:"before,omitempty"`
	After  any `json:"after,omitempty"`
}

func (c Change) String() string {
	switch c.What {
	case "lost":
		return fmt.Sprintf("%s: lost (was %s)", c.Path, show(c.Before))
	case "added":
		return fmt.Sprintf("%s: added (%s)", c.Path, show(c.After))
	}
	return fmt.Sprintf("%s: changed from %s to %s", c.Path, show(c.Before), show(c.After))
}

// RoundTrips converts obj, as the server decodes it at its own version,
// to each other served version and back (A -> B -> A), and with three or
// more served versions through each ordered pair of others (A -> B -> C
// -> A). Each hop is what a client that reads the object at the next
// version and writes it back there gets: the server's conversion and its
// codec's coercion (Hop), then that version's defaults (a write is
// defaulted at its version), so a defaulted field that a conversion drops
// and the next write defaults again is not a loss. A trip that changes
// nothing has no Changes.
func (c *Converter) RoundTrips(obj *unstructured.Unstructured) ([]Trip, error) {
	start, err := c.Decoded(obj)
	if err != nil {
		return nil, err
	}
	own := start.GroupVersionKind().Version
	var others []string
	for _, v := range Versions(c.crd, true) {
		if v != own {
			others = append(others, v)
		}
	}
	var routes [][]string
	for _, b := range others {
		routes = append(routes, []string{own, b, own})
	}
	for _, b := range others {
		for _, cv := range others {
			if b != cv {
				routes = append(routes, []string{own, b, cv, own})
			}
		}
	}
	trips := make([]Trip, 0, len(routes))
	for _, route := range routes {
		trip := Trip{Versions: route}
		at := start
		for i, v := range route[1:] {
			next, err := c.Hop(at, v)
			if err != nil {
				trip.Err = fmt.Errorf("%s -> %s: %w", route[i], v, err)
				break
			}
			structuraldefaulting.Default(next.Object, c.schemas[v])
			at = next
		}
		if trip.Err == nil {
			trip.Changes = Changes(start.Object, at.Object)
		}
		trips = append(trips, trip)
	}
	return trips, nil
}

// Changes lists where after differs from before, field by field (a list
// of another length is one change).
func Changes(before, after map[string]any) []Change {
	var out []Change
	changes(nil, before, after, &out)
	return out
}

func changes(path *field.Path, before, after any, out *[]Change) {
	bm, bIsMap := before.(map[string]any)
	am, aIsMap := after.(map[string]any)
	if bIsMap && aIsMap {
		keys := map[string]bool{}
		for k := range bm {
			keys[k] = true
		}
		for k := range am {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			p := step(path, k)
			b, inBefore := bm[k]
			a, inAfter := am[k]
			switch {
			case !inAfter:
				*out = append(*out, Change{Path: p.String(), What: "lost", Before: b})
			case !inBefore:
				*out = append(*out, Change{Path: p.String(), What: "added", After: a})
			default:
				changes(p, b, a, out)
			}
		}
		return
	}
	bl, bIsList := before.([]any)
	al, aIsList := after.([]any)
	if bIsList && aIsList && len(bl) == len(al) {
		for i := range bl {
			changes(path.Index(i), bl[i], al[i], out)
		}
		return
	}
	if !reflect.DeepEqual(before, after) {
		*out = append(*out, Change{Path: path.String(), What: "changed", Before: before, After: after})
	}
}

// step is the path of a map's key: a field name as .name, a key that is
// not one (labels, annotations, keys with dots or slashes) as [key], as
// the server writes them.
func step(path *field.Path, key string) *field.Path {
	if path == nil {
		return field.NewPath(key)
	}
	if s := path.String(); s == "metadata.labels" || s == "metadata.annotations" || !plainName(key) {
		return path.Key(key)
	}
	return path.Child(key)
}

func plainName(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_', r == '$':
		case i > 0 && (r >= '0' && r <= '9' || r == '-'):
		default:
			return false
		}
	}
	return s != ""
}

// show is a value as JSON, shortened for a message.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 80 {
		return string(b[:77]) + "..."
	}
	return string(b)
}
