package diff

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

func enumChanges(o, n []apiextensionsv1.JSON, add func(string, string, ...any)) {
	raw := func(vs []apiextensionsv1.JSON) []string {
		out := make([]string, len(vs))
		for i, v := range vs {
			out[i] = string(bytes.TrimSpace(v.Raw))
		}
		return out
	}
	ov, nv := raw(o), raw(n)
	switch {
	case len(ov) == 0 && len(nv) > 0:
		add("enum-added", "values are now restricted to %s", strings.Join(nv, ", "))
		return
	case len(ov) > 0 && len(nv) == 0:
		add("enum-removed", "values are no longer restricted to %s", strings.Join(ov, ", "))
		return
	}
	var removed, added []string
	for _, v := range ov {
		if !slices.Contains(nv, v) {
			removed = append(removed, v)
		}
	}
	for _, v := range nv {
		if !slices.Contains(ov, v) {
			added = append(added, v)
		}
	}
	if len(removed) > 0 {
		add("enum-value-removed", "enum values %s removed", strings.Join(removed, ", "))
	}
	if len(added) > 0 {
		add("enum-value-added", "enum values %s added", strings.Join(added, ", "))
	}
}

func defaultChanges(o, n *apiextensionsv1.JSON, add func(string, string, ...any)) {
	switch {
	case o == nil && n != nil:
		add("default-added", "default %s added", n.Raw)
	case o != nil && n == nil:
		add("default-removed", "default %s removed", o.Raw)
	case o != nil && n != nil && !jsonEqual(o.Raw, n.Raw):
		add("default-changed", "default %s is now %s", o.Raw, n.Raw)
	}
}

// boundChanges compares every bound: an upper bound is tighter when it
// appears or goes down (or turns exclusive), a lower bound when it
// appears or goes up.
func boundChanges(o, n *apiextensionsv1.JSONSchemaProps, add func(string, string, ...any)) {
	type bound struct {
		name       string
		upper      bool
		o, n       *float64
		oExc, nExc bool
	}
	f := func(i *int64) *float64 {
		if i == nil {
			return nil
		}
		v := float64(*i)
		return &v
	}
	for _, b := range []bound{
		{"maximum", true, o.Maximum, n.Maximum, o.ExclusiveMaximum, n.ExclusiveMaximum},
		{"minimum", false, o.Minimum, n.Minimum, o.ExclusiveMinimum, n.ExclusiveMinimum},
		{"maxLength", true, f(o.MaxLength), f(n.MaxLength), false, false},
		{"minLength", false, f(o.MinLength), f(n.MinLength), false, false},
		{"maxItems", true, f(o.MaxItems), f(n.MaxItems), false, false},
		{"minItems", false, f(o.MinItems), f(n.MinItems), false, false},
		{"maxProperties", true, f(o.MaxProperties), f(n.MaxProperties), false, false},
		{"minProperties", false, f(o.MinProperties), f(n.MinProperties), false, false},
	} {
		var tighter bool
		switch {
		case b.o == nil && b.n == nil:
			continue
		case b.o == nil:
			tighter = true
		case b.n == nil:
			tighter = false
		case *b.o == *b.n && b.oExc == b.nExc:
			continue
		case *b.o == *b.n:
			tighter = b.nExc
		case b.upper:
			tighter = *b.n < *b.o
		default:
			tighter = *b.n > *b.o
		}
		check := "bound-loosened"
		if tighter {
			check = "bound-tightened"
		}
		switch {
		case b.o == nil:
			add(check, "%s added: %s", b.name, boundText(b.n, b.nExc))
		case b.n == nil:
			add(check, "%s removed (was %s)", b.name, boundText(b.o, b.oExc))
		default:
			add(check, "%s %s is now %s", b.name, boundText(b.o, b.oExc), boundText(b.n, b.nExc))
		}
	}
}

func boundText(v *float64, exclusive bool) string {
	switch {
	case v == nil:
		return "none"
	case exclusive:
		return fmt.Sprintf("%g (exclusive)", *v)
	}
	return fmt.Sprintf("%g", *v)
}

// ruleChanges matches rules by their expression; the rules left on both
// sides are changed ones, in order, and the rest added or removed.
func ruleChanges(o, n apiextensionsv1.ValidationRules, add func(string, string, ...any)) {
	const ratchet = "; objects stored before it keep passing while the fields it checks are unchanged (validation ratcheting), new and changed values must pass"
	var oldLeft, newLeft []apiextensionsv1.ValidationRule
	for _, r := range o {
		if i := slices.IndexFunc(n, func(x apiextensionsv1.ValidationRule) bool { return x.Rule == r.Rule }); i < 0 {
			oldLeft = append(oldLeft, r)
		} else if !equality.Semantic.DeepEqual(r, n[i]) {
			add("validation-rule-changed", "the message, reason or field path of rule %q changed", r.Rule)
		}
	}
	for _, r := range n {
		if !slices.ContainsFunc(o, func(x apiextensionsv1.ValidationRule) bool { return x.Rule == r.Rule }) {
			newLeft = append(newLeft, r)
		}
	}
	for len(oldLeft) > 0 && len(newLeft) > 0 {
		add("validation-rule-changed", "rule changed: %s%s", wordDiff(oldLeft[0].Rule, newLeft[0].Rule), ratchet)
		oldLeft, newLeft = oldLeft[1:], newLeft[1:]
	}
	for _, r := range newLeft {
		add("validation-rule-added", "rule %q added%s", r.Rule, ratchet)
	}
	for _, r := range oldLeft {
		add("validation-rule-removed", "rule %q removed", r.Rule)
	}
}
