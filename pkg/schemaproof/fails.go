package schemaproof

import "unicode/utf8"

// fails reports whether kube-openapi's validation of v against the schema
// n was compiled from certainly finds an error; false is "not proven".
// It proves what oneOf and not need: that the other schemas of a oneOf
// fail, and that a not's schema does. Any one error is enough, so the
// keywords this package does not prove clean do not stop it.
func (n *node) fails(v any) bool {
	if v == nil {
		// Only the type check and the enum run for null; null matches no
		// enum value.
		return n.hasEnum || (n.typed && n.types&kindNull == 0 && !n.nullable)
	}
	kind := kindOf(v)
	switch {
	case kind == 0:
		return false
	case n.typed && n.format == "" && n.types&kind == 0 &&
		!(kind == kindInteger && n.types&kindNumber != 0) &&
		!(kind == kindNumber && n.types&kindInteger != 0):
		// A float that is an integer passes an integer type.
		return true
	}
	if s, ok := v.(string); ok {
		if n.hasEnum && !n.enum[s] {
			// A string converts to no other type a decoded enum value has.
			return true
		}
		l := int64(utf8.RuneCountInString(s))
		if (n.minLength != nil && l < *n.minLength) || (n.maxLength != nil && l > *n.maxLength) {
			return true
		}
		if n.pattern != nil {
			if re := n.pattern.get(); re != nil && !re.MatchString(s) {
				return true
			}
		}
	}
	if m, ok := v.(map[string]any); ok {
		for _, k := range n.required {
			if _, ok := m[k]; !ok {
				return true
			}
		}
	}
	for _, s := range n.allOf {
		if s.fails(v) {
			return true
		}
	}
	if len(n.anyOf) > 0 {
		all := true
		for _, s := range n.anyOf {
			all = all && s.fails(v)
		}
		if all {
			return true
		}
	}
	return n.not != nil && n.not.clean(v)
}
