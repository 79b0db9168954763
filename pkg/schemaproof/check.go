package schemaproof

import (
	"math"
	"unicode/utf8"

	"github.com/go-openapi/swag/conv"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// verdict is what the proof knows of one validator's (or one schema's)
// result on a value: it finds nothing, it certainly finds an error, or
// either could be.
type verdict uint8

const (
	unknown verdict = iota
	pass
	fail
)

// goal says what a judgement is for: proving a value clean (any verdict
// but pass ends it) or proving that it fails (only a fail ends it). The
// keyword checks are the same either way.
type goal uint8

const (
	provePass goal = iota
	proveFail
)

// clean reports whether kube-openapi's SchemaValidator, built from the
// schema n was compiled from, finds nothing in v; false is "not proven",
// never "invalid".
func (n *node) clean(v any) bool { return n.judge(v, provePass) == pass }

// fails reports whether that validator certainly finds an error in v;
// false is "not proven". oneOf and not need it.
func (n *node) fails(v any) bool { return n.judge(v, proveFail) == fail }

// judge is SchemaValidator.Validate (kube-openapi's schema.go) on v, step
// by step: for null, the type validator and the common (enum) validator
// only; for any other value, each validator that applies to v's kind
// (type, schema props, string, format, number, slice, common, object).
// The result is fail when one validator certainly finds an error, pass
// when every one certainly finds none, else unknown; a keyword this
// package does not mirror (n.unproven) makes it unknown at best.
func (n *node) judge(v any, g goal) verdict {
	out := pass
	if n.unproven {
		out = unknown
	}
	// add folds one validator's verdict into out; true: out is settled
	// for the goal, and the rest need not be asked.
	add := func(w verdict) bool {
		switch {
		case w == fail:
			out = fail
			return true
		case w == unknown:
			out = unknown
			return g == provePass
		}
		return false
	}
	if out == unknown && add(unknown) {
		return out
	}
	if add(n.typeVerdict(v)) {
		return out
	}
	if v == nil {
		add(n.enumVerdict(v))
		return out
	}
	if add(n.junctorsVerdict(v, g)) {
		return out
	}
	switch x := v.(type) {
	case string:
		if add(n.stringVerdict(x)) || add(n.formatVerdict(x)) {
			return out
		}
	case int64:
		if add(n.integerVerdict(x)) {
			return out
		}
	case float64:
		if add(n.floatVerdict(x)) {
			return out
		}
	case []any:
		if add(n.arrayVerdict(x, g)) {
			return out
		}
	case map[string]any:
		if add(n.objectVerdict(x, g)) {
			return out
		}
	case bool:
	default:
		add(unknown) // no value the decoder gives
		return out
	}
	add(n.enumVerdict(v))
	return out
}

// typeVerdict is kube-openapi's typeValidator (type.go): it applies when
// the schema has a type or a format; null fails a type without null that
// is not nullable; a string or a list passes a format without a numeric
// type; else the value's type must be one of the schema's, or an integral
// float where integer is, or an integer where number is.
func (n *node) typeVerdict(v any) verdict {
	if !n.typed && n.format == "" {
		return pass
	}
	if v == nil {
		if n.typed && n.types&kindNull == 0 && !n.nullable {
			return fail
		}
		return pass
	}
	kind := kindOf(v)
	if kind == 0 {
		return unknown
	}
	floatInt := kind == kindNumber && n.types&kindInteger != 0 && conv.IsFloat64AJSONInteger(v.(float64))
	intFloat := kind == kindInteger && n.types&kindNumber != 0
	if kind != kindString && kind != kindArray && n.format != "" &&
		!(n.types&kind != 0 || n.format == valueFormat(kind) || floatInt || intFloat) {
		return fail
	}
	if n.types&(kindNumber|kindInteger) == 0 && n.format != "" && (kind == kindString || kind == kindArray) {
		return pass
	}
	if n.types&kind != 0 || floatInt || intFloat {
		return pass
	}
	return fail
}

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

// junctorsVerdict is the schema props validator (schema_props.go): anyOf
// passes at its first passing schema, oneOf with exactly one, allOf with
// all, not when its schema fails. (A failing oneOf schema's errors that
// start with "IMPORTANT!" are kept even when another passes: compile
// declines the schemas where an error could.)
func (n *node) junctorsVerdict(v any, g goal) verdict {
	out := pass
	fold := func(w verdict) bool {
		switch {
		case w == fail:
			out = fail
			return true
		case w == unknown:
			out = unknown
			return g == provePass
		}
		return false
	}
	for _, s := range n.allOf {
		if fold(s.judge(v, g)) {
			return out
		}
	}
	if len(n.anyOf) > 0 {
		if fold(n.anyVerdict(v, g)) {
			return out
		}
	}
	if len(n.oneOf) > 0 {
		if fold(n.oneVerdict(v)) {
			return out
		}
	}
	if n.not != nil {
		switch n.not.judge(v, proveFail) {
		case fail:
			fold(pass)
		case pass:
			fold(fail)
		default:
			fold(unknown)
		}
	}
	return out
}

// anyVerdict: pass at the first schema that passes; fail when every one
// certainly fails.
func (n *node) anyVerdict(v any, g goal) verdict {
	failed := 0
	for _, s := range n.anyOf {
		switch s.judge(v, provePass) {
		case pass:
			return pass
		case fail:
			failed++
		default:
			if g == proveFail && s.fails(v) {
				failed++
			}
		}
	}
	if failed == len(n.anyOf) {
		return fail
	}
	return unknown
}

// oneVerdict: pass when exactly one schema passes and every other
// certainly fails; fail when two pass, or all certainly fail.
func (n *node) oneVerdict(v any) verdict {
	passed, failed := 0, 0
	for _, s := range n.oneOf {
		switch {
		case s.clean(v):
			passed++
		case s.fails(v):
			failed++
		}
	}
	switch {
	case passed >= 2 || failed == len(n.oneOf):
		return fail
	case passed == 1 && failed == len(n.oneOf)-1:
		return pass
	}
	return unknown
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

// arrayVerdict is the slice validator (slice_validator.go): minItems,
// maxItems, then each item against items.
func (n *node) arrayVerdict(a []any, g goal) verdict {
	l := int64(len(a))
	if (n.minItems != nil && l < *n.minItems) || (n.maxItems != nil && l > *n.maxItems) {
		return fail
	}
	out := pass
	if n.items != nil {
		for _, e := range a {
			switch n.items.judge(e, g) {
			case fail:
				return fail
			case unknown:
				if g == provePass {
					return unknown
				}
				out = unknown
			}
		}
	}
	return out
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
	out := pass
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
		switch w {
		case fail:
			return fail
		case unknown:
			if g == provePass {
				return unknown
			}
			out = unknown
		}
	}
	return out
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
