package schemaproof

import (
	"github.com/go-openapi/swag/conv"
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
