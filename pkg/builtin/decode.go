package builtin

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	sigsjson "sigs.k8s.io/json"
)

// DecodeError is the server's refusal of a body it cannot decode into the
// kind's type (a string where a number goes, say): a BadRequest without
// field causes, refused before any check.
type DecodeError struct {
	// Field is the path of the value the decoder stopped at ("" when the
	// decoder does not say).
	Field string
	Err   *apierrors.StatusError
}

func (e *DecodeError) Error() string { return e.Err.Error() }

// decode decodes body as the server decodes a request body with
// fieldValidation=Strict: into the kind's internal type, defaulted. The
// unknown fields it meets are in the result; a body that cannot be decoded
// gives no object and the result's Err.
func (k *Kind) decode(body []byte) (runtime.Object, metav1.Object, Result) {
	into, err := k.scheme.New(k.hub().WithKind(k.GVK.Kind))
	if err != nil {
		return nil, nil, Result{Err: apierrors.NewInternalError(err)}
	}
	obj, gvk, err := k.scheme.codecs.DecoderToVersion(k.scheme.strict, k.hub()).Decode(body, &k.GVK, into)
	var res Result
	if err != nil {
		unknown, ok := onlyUnknownFields(err)
		if !ok || obj == nil {
			if gvk == nil || gvk.Kind == "" {
				gvk = &k.GVK
			}
			return nil, nil, Result{Err: &DecodeError{Field: typeErrorField(err.Error(), body), Err: apierrors.NewBadRequest(
				fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, k.GVK.Kind, err))}}
		}
		res.Unknown = unknown
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, nil, Result{Err: apierrors.NewInternalError(err)}
	}
	return obj, m, res
}

// onlyUnknownFields returns the paths of the unknown fields of a strict
// decoding error that is about nothing else.
func onlyUnknownFields(err error) ([]string, bool) {
	strict, ok := runtime.AsStrictDecodingError(err)
	if !ok {
		return nil, false
	}
	var paths []string
	for _, e := range strict.Errors() {
		path, ok := UnknownField(e)
		if !ok {
			return nil, false
		}
		paths = append(paths, path)
	}
	return paths, true
}

// UnknownField is the path of the field one error of strict decoding
// names, when the error is that the type has no such field. The path is
// the decoder's own (its message quotes it, escapes included); only the
// kind of error, unknown or duplicate, is told by the message.
func UnknownField(err error) (string, bool) {
	var fe sigsjson.FieldError
	if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), "unknown field ") {
		return "", false
	}
	return fe.FieldPath(), true
}

// typeErrorMessage is how encoding/json (and sigs.k8s.io/json) name a value
// of the wrong type: its JSON type, and the struct field as a dotted path
// without list indexes, after the Go type's name.
// Compiled when first needed: nothing is done when the program starts.
var typeErrorMessage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`cannot unmarshal (\w+)(?: \S+)? into Go struct field [^.\s]+\.(\S+) of type`)
})

// TypeErrorField is typeErrorField for the decoders of other packages
// (a custom resource's metadata).
func TypeErrorField(msg string, body []byte) string { return typeErrorField(msg, body) }

// typeErrorField is the path of the value a type error is about, with the
// list indexes the decoder leaves out found in body: the first value at
// that path of the JSON type the error names. It is "" when the error
// names no field.
func typeErrorField(msg string, body []byte) string {
	m := typeErrorMessage().FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	jsonType, dotted := m[1], m[2]
	var obj any
	if sigsjson.UnmarshalCaseSensitivePreserveInts(body, &obj) != nil {
		return dotted
	}
	if path, ok := find(obj, strings.Split(dotted, "."), "", jsonType); ok {
		return path
	}
	return dotted
}

// find walks keys from v, through every item of the lists on the way, to
// the first value of jsonType; prefix is the path of v.
func find(v any, keys []string, prefix, jsonType string) (string, bool) {
	if list, ok := v.([]any); ok && (len(keys) > 0 || jsonType != "array") {
		// A list where a key or a scalar is expected: its items are meant.
		for i, item := range list {
			if path, ok := find(item, keys, prefix+"["+strconv.Itoa(i)+"]", jsonType); ok {
				return path, true
			}
		}
		return "", false
	}
	if len(keys) == 0 {
		return prefix, typeOf(v) == jsonType
	}
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	child, ok := m[keys[0]]
	if !ok {
		return "", false
	}
	if prefix != "" {
		prefix += "."
	}
	return find(child, keys[1:], prefix+keys[0], jsonType)
}

// typeOf is the JSON type encoding/json names in its errors.
func typeOf(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case bool:
		return "bool"
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case nil:
		return "null"
	default:
		return "number"
	}
}
