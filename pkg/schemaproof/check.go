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

// folding gathers validators' verdicts for a goal: fail when one
// fails, unknown when one is unknown (and none fails), else pass.
type folding struct {
	out verdict
	g   goal
}

// add folds one verdict in; true: the outcome is settled for the goal
// (a failure; or, proving a pass, an unknown), and the rest need not be
// asked.
func (f *folding) add(w verdict) bool {
	switch w {
	case fail:
		f.out = fail
		return true
	case unknown:
		f.out = unknown
		return f.g == provePass
	}
	return false
}

// judge is SchemaValidator.Validate (kube-openapi's schema.go) on v, step
// by step: for null, the type validator and the common (enum) validator
// only; for any other value, each validator that applies to v's kind
// (type, schema props, string, format, number, slice, common, object).
// The result is fail when one validator certainly finds an error, pass
// when every one certainly finds none, else unknown; a keyword this
// package does not mirror (n.unproven) makes it unknown at best.
func (n *node) judge(v any, g goal) verdict {
	f := folding{out: pass, g: g}
	if n.unproven && f.add(unknown) {
		return f.out
	}
	if f.add(n.typeVerdict(v)) {
		return f.out
	}
	if v == nil {
		f.add(n.enumVerdict(v))
		return f.out
	}
	if f.add(n.junctorsVerdict(v, g)) {
		return f.out
	}
	switch x := v.(type) {
	case string:
		if f.add(n.stringVerdict(x)) || f.add(n.formatVerdict(x)) {
			return f.out
		}
	case int64:
		if f.add(n.integerVerdict(x)) {
			return f.out
		}
	case float64:
		if f.add(n.floatVerdict(x)) {
			return f.out
		}
	case []any:
		if f.add(n.arrayVerdict(x, g)) {
			return f.out
		}
	case map[string]any:
		if f.add(n.objectVerdict(x, g)) {
			return f.out
		}
	case bool:
	default:
		f.add(unknown) // no value the decoder gives
		return f.out
	}
	f.add(n.enumVerdict(v))
	return f.out
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
	f := folding{out: pass, g: g}
	for _, s := range n.allOf {
		if f.add(s.judge(v, g)) {
			return f.out
		}
	}
	if len(n.anyOf) > 0 {
		if f.add(n.anyVerdict(v, g)) {
			return f.out
		}
	}
	if len(n.oneOf) > 0 {
		if f.add(n.oneVerdict(v)) {
			return f.out
		}
	}
	if n.not != nil {
		switch n.not.judge(v, proveFail) {
		case fail:
			f.add(pass)
		case pass:
			f.add(fail)
		default:
			f.add(unknown)
		}
	}
	return f.out
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
