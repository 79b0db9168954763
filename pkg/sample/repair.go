package sample

import (
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
)

// repair is one change worth trying: do makes it and returns its undo;
// omits are the optional fields it leaves out.
type repair struct {
	do    func() func()
	omits []string
}

// repairs are the changes worth trying for the first refusal: at the
// choices under the refused field (or above it), another value, and
// optional parts left out or put in.
func (g *generator) repairs(causes []validate.FieldError) []repair {
	field := strings.TrimPrefix(causes[0].Field, ".")
	related := func(p string) bool {
		return field == "" || field == "<nil>" || p == field || under(p, field) || under(field, p)
	}
	// The choices inside the refused field first, shallow ones first (a
	// rule on an object is about its fields); then those of the objects
	// around it, the nearest first.
	var points []point
	for _, pt := range g.points {
		if pt.path == field || under(pt.path, field) || field == "" || field == "<nil>" {
			points = append(points, pt)
		}
	}
	slices.SortStableFunc(points, func(a, b point) int { return depth(a.path) - depth(b.path) })
	var around []point
	for _, pt := range g.points {
		if under(field, pt.path) {
			around = append(around, pt)
		}
	}
	slices.SortStableFunc(around, func(a, b point) int { return depth(b.path) - depth(a.path) })
	points = append(points, around...)
	var out []repair
	var direct []string // optional fields of the refused object, present
	for _, pt := range points {
		if !related(pt.path) {
			continue
		}
		switch {
		case pt.optional && pt.present && parent(pt.path) == field:
			direct = append(direct, pt.path)
		case pt.optional && pt.present:
			out = append(out, repair{g.setFlag(g.omit, pt.path), []string{pt.path}})
		case pt.optional:
			out = append(out, repair{do: g.setFlag(g.include, pt.path)})
		default:
			for alt := 1; alt < pt.options; alt++ {
				path, next := pt.path, (g.variant[pt.path]+alt)%pt.options
				out = append(out, repair{do: func() func() {
					old := g.variant[path]
					g.variant[path] = next
					return func() { g.variant[path] = old }
				}})
			}
		}
	}

	// The refused object's own optional fields first, one left out at a
	// time; then, for a rule that allows at most one of several fields,
	// each one kept alone.
	var first []repair
	for _, p := range direct {
		first = append(first, repair{g.setFlag(g.omit, p), []string{p}})
	}
	for _, keep := range direct {
		if len(direct) < 3 {
			break
		}
		others := slices.DeleteFunc(slices.Clone(direct), func(p string) bool { return p == keep })
		first = append(first, repair{func() func() {
			var undo []func()
			for _, p := range others {
				undo = append(undo, g.setFlag(g.omit, p)())
			}
			return func() {
				for _, u := range undo {
					u()
				}
			}
		}, others})
	}
	return append(first, out...)
}

// depth counts a path's steps.
func depth(p string) int {
	return strings.Count(p, ".") + strings.Count(p, "[") + strings.Count(p, "#")
}

// parent is the object a field path is in ("" at the top).
func parent(p string) string {
	i := strings.LastIndexAny(p, ".[#")
	if i < 0 {
		return ""
	}
	return p[:i]
}

func (g *generator) setFlag(m map[string]bool, path string) func() func() {
	return func() func() {
		old := m[path]
		m[path] = true
		return func() { m[path] = old }
	}
}

// under tells whether path p is inside field f.
func under(p, f string) bool {
	return strings.HasPrefix(p, f+".") || strings.HasPrefix(p, f+"[") || strings.HasPrefix(p, f+"#")
}
