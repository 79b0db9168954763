package schemaproof

import (
	"math"
	"unicode/utf8"

	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// valueFormat is the format kube-openapi's type validator gives a decoded
// value of kind (schemaInfoForType).
func valueFormat(kind uint8) string {
	switch kind {
	case kindInteger:
		return "int64"
	case kindNumber:
		return "float64"
	}
	return ""
}

// stringVerdict is the string validator (validator.go): maxLength, then
// minLength (in runes), then pattern; a pattern that does not compile is
// an error of every string.
func (n *node) stringVerdict(s string) verdict {
	if n.minLength != nil || n.maxLength != nil {
		l := int64(utf8.RuneCountInString(s))
		if (n.maxLength != nil && l > *n.maxLength) || (n.minLength != nil && l < *n.minLength) {
			return fail
		}
	}
	if n.pattern != nil {
		if re := n.pattern.get(); re == nil || !re.MatchString(s) {
			return fail
		}
	}
	return pass
}

// formatVerdict is the format validator: it applies to strings whose
// format the server's registry knows.
func (n *node) formatVerdict(s string) verdict {
	if n.formatChecked && !strfmt.Default.Validates(n.format, s) {
		return fail
	}
	return pass
}

// integerVerdict is the number validator (validator.go) on an integer:
// its range for the schema's type and format, then multipleOf, maximum
// and minimum, each compared natively (as integers, the bound truncated)
// when the bound fits the type and format; a bound that does not is an
// error of every number (numberBoundsFit). A bound past int64's range
// would be truncated as Go does not define: not proven.
func (n *node) integerVerdict(i int64) verdict {
	if !n.boundsFit {
		return fail
	}
	if n.numberType == "integer" && n.numberFormat == "int32" && (i < math.MinInt32 || i > math.MaxInt32) {
		return fail
	}
	if n.multipleOf != nil {
		if !inInt64(*n.multipleOf) {
			return unknown
		}
		if validate.MultipleOfInt("", "", i, int64(*n.multipleOf)) != nil {
			return fail
		}
	}
	if n.maximum != nil {
		if !inInt64(*n.maximum) {
			return unknown
		}
		if validate.MaximumInt("", "", i, int64(*n.maximum), n.exclMax) != nil {
			return fail
		}
	}
	if n.minimum != nil {
		if !inInt64(*n.minimum) {
			return unknown
		}
		if validate.MinimumInt("", "", i, int64(*n.minimum), n.exclMin) != nil {
			return fail
		}
	}
	return pass
}

// floatVerdict is the number validator on a float: its range for the
// schema's type and format, then multipleOf, maximum and minimum, as
// floats; kube-openapi's own functions.
func (n *node) floatVerdict(f float64) verdict {
	if !n.boundsFit || validate.IsValueValidAgainstRange(f, n.numberType, n.numberFormat, "", "") != nil {
		return fail
	}
	if n.multipleOf != nil && validate.MultipleOf("", "", f, *n.multipleOf) != nil {
		return fail
	}
	if n.maximum != nil && validate.Maximum("", "", f, *n.maximum, n.exclMax) != nil {
		return fail
	}
	if n.minimum != nil && validate.Minimum("", "", f, *n.minimum, n.exclMin) != nil {
		return fail
	}
	return pass
}

// inInt64 tells whether int64(f) is defined: f within int64's range.
func inInt64(f float64) bool {
	return f >= math.MinInt64 && f < math.MaxInt64
}

// enumVerdict is the common validator (validator.go): the value must
// equal an enum value once converted to its type. A string converts only
// to a string here (no enum value decoded from JSON is a byte or rune
// slice), and null to nothing; other kinds are not proven.
func (n *node) enumVerdict(v any) verdict {
	if !n.hasEnum {
		return pass
	}
	switch x := v.(type) {
	case nil:
		return fail
	case string:
		if n.enum[x] {
			return pass
		}
		return fail
	}
	return unknown
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
