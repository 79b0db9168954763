package schemaproof

// arrayVerdict is the slice validator (slice_validator.go): minItems,
// maxItems, then each item against items.
func (n *node) arrayVerdict(a []any, g goal) verdict {
	l := int64(len(a))
	if (n.minItems != nil && l < *n.minItems) || (n.maxItems != nil && l > *n.maxItems) {
		return fail
	}
	f := folding{out: pass, g: g}
	if n.items != nil {
		for _, e := range a {
			if f.add(n.items.judge(e, g)) {
				break
			}
		}
	}
	return f.out
}

// objectVerdict is the object validator (object_validator.go):
// min/maxProperties, unknown properties where additionalProperties is
// false, each property against its schema (or additionalProperties'),
// and required.
func (n *node) objectVerdict(m map[string]any, g goal) verdict {
	l := int64(len(m))
	if (n.minProps != nil && l < *n.minProps) || (n.maxProps != nil && l > *n.maxProps) {
		return fail
	}
	for _, k := range n.required {
		if _, ok := m[k]; !ok {
			return fail
		}
	}
	f := folding{out: pass, g: g}
	for k, e := range m {
		var w verdict
		p := n.property(k)
		switch {
		case p != nil:
			w = p.judge(e, g)
		case n.patternProps:
			// A key a pattern matches is neither forbidden nor checked
			// against additionalProperties.
			w = unknown
		case n.closed:
			return fail
		case n.additional != nil:
			w = n.additional.judge(e, g)
		default:
			continue
		}
		if f.add(w) {
			break
		}
	}
	return f.out
}
