package schemaproof

import (
	"math"
	"unicode/utf8"

	"github.com/go-openapi/swag/conv"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// clean reports whether kube-openapi's SchemaValidator, built from the
// schema n was compiled from, finds nothing in v; false is "not proven",
// never "invalid". Each step below is one of kube-openapi's validators,
// taken only where it applies to v's kind, as kube-openapi applies it;
// where a step could answer either way, clean answers false.
func (n *node) clean(v any) bool {
	if n.unproven {
		return false
	}
	if v == nil {
		// For null, kube-openapi runs the type check and the enum only;
		// no enum value is null once decoded.
		return !n.hasEnum && (!n.typed || n.types&kindNull != 0 || n.nullable)
	}
	kind := kindOf(v)
	if kind == 0 || !n.typeClean(kind) {
		return false
	}
	for _, s := range n.allOf {
		if !s.clean(v) {
			return false
		}
	}
	if len(n.anyOf) > 0 && !n.anyClean(v) {
		return false
	}
	if len(n.oneOf) > 0 && !n.oneClean(v) {
		return false
	}
	if n.not != nil && !n.not.fails(v) {
		return false
	}
	if n.hasEnum {
		// The enum's check converts v to each value's type and compares:
		// a string equal to a string value passes, whatever the others.
		if s, ok := v.(string); !ok || !n.enum[s] {
			return false
		}
	}
	switch x := v.(type) {
	case string:
		return n.stringClean(x)
	case int64:
		return n.integerClean(x)
	case float64:
		return n.numberClean(x)
	case []any:
		return n.arrayClean(x)
	case map[string]any:
		return n.objectClean(x)
	}
	return true
}

// typeClean is kube-openapi's type check of a value of kind.
func (n *node) typeClean(kind uint8) bool {
	switch {
	case !n.typed && n.format == "":
		return true // the type check does not apply
	case n.typed && n.types&kind != 0:
		return true
	case n.typed && kind == kindInteger && n.types&kindNumber != 0:
		return true // an integer is a number
	case !n.typed && (kind == kindString || kind == kindArray):
		return true // a format without a type passes strings and lists
	}
	return false
}

func (n *node) anyClean(v any) bool {
	for _, s := range n.anyOf {
		if s.clean(v) {
			return true
		}
	}
	return false
}

// oneClean: one of the schemas passes and every other certainly fails.
func (n *node) oneClean(v any) bool {
	passed := -1
	for i, s := range n.oneOf {
		if s.clean(v) {
			if passed >= 0 {
				return false
			}
			passed = i
		}
	}
	if passed < 0 {
		return false
	}
	for i, s := range n.oneOf {
		if i != passed && !s.fails(v) {
			return false
		}
	}
	return true
}

func (n *node) stringClean(s string) bool {
	if n.minLength != nil || n.maxLength != nil {
		l := int64(utf8.RuneCountInString(s))
		if (n.minLength != nil && l < *n.minLength) || (n.maxLength != nil && l > *n.maxLength) {
			return false
		}
	}
	if n.pattern != nil {
		if re := n.pattern.get(); re == nil || !re.MatchString(s) {
			return false
		}
	}
	return !n.formatChecked || strfmt.Default.Validates(n.format, s)
}

// integerClean: kube-openapi compares an integer with a bound either as
// integers (the bound truncated) or as floats, depending on the bound;
// both must pass.
func (n *node) integerClean(i int64) bool {
	if n.int32Range && (i < math.MinInt32 || i > math.MaxInt32) {
		return false
	}
	if n.maximum != nil {
		m := int64(*n.maximum)
		if i > m || (n.exclMax && i >= m) {
			return false
		}
	}
	if n.minimum != nil {
		m := int64(*n.minimum)
		if i < m || (n.exclMin && i <= m) {
			return false
		}
	}
	if n.multipleOf != nil {
		f := *n.multipleOf
		m := int64(f)
		if m <= 0 || i%m != 0 || !multipleOf(float64(i), f) {
			return false
		}
	}
	return within(float64(i), n.minimum, n.maximum, n.exclMin, n.exclMax)
}

// multipleOf is kube-openapi's check of a float, computed as it computes
// it.
func multipleOf(data, factor float64) bool {
	if factor <= 0 {
		return false
	}
	mult := data / factor
	if factor < 1 {
		mult = 1 / factor * data
	}
	return conv.IsFloat64AJSONInteger(mult)
}

func (n *node) numberClean(f float64) bool {
	if n.float32Range && math.Abs(f) > math.MaxFloat32 {
		return false
	}
	if n.multipleOf != nil && !multipleOf(f, *n.multipleOf) {
		return false
	}
	return within(f, n.minimum, n.maximum, n.exclMin, n.exclMax)
}

func (n *node) arrayClean(a []any) bool {
	l := int64(len(a))
	if (n.minItems != nil && l < *n.minItems) || (n.maxItems != nil && l > *n.maxItems) {
		return false
	}
	if n.items != nil {
		for _, e := range a {
			if !n.items.clean(e) {
				return false
			}
		}
	}
	return true
}

func (n *node) objectClean(m map[string]any) bool {
	l := int64(len(m))
	if (n.minProps != nil && l < *n.minProps) || (n.maxProps != nil && l > *n.maxProps) {
		return false
	}
	for _, k := range n.required {
		if _, ok := m[k]; !ok {
			return false
		}
	}
	for k, e := range m {
		p := n.property(k)
		switch {
		case p != nil:
			if !p.clean(e) {
				return false
			}
		case n.closed:
			return false
		case n.additional != nil:
			if !n.additional.clean(e) {
				return false
			}
		}
	}
	return true
}

// kindOf is the kind of a decoded JSON value (0 for any other Go value).
func kindOf(v any) uint8 {
	switch v.(type) {
	case string:
		return kindString
	case bool:
		return kindBoolean
	case int64:
		return kindInteger
	case float64:
		return kindNumber
	case map[string]any:
		return kindObject
	case []any:
		return kindArray
	}
	return 0
}
