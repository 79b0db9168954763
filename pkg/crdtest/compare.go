package crdtest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/pmezard/go-difflib/difflib"
	"sigs.k8s.io/yaml"
)

// matches compares the stored object with what a case expects ("":
// nothing to compare): every top-level field the expected object has
// (spec, status, any other), and of its metadata the fields it names,
// but its name and namespace (the server generates one, and places the
// object); what the server sets alone (uid, resourceVersion, generation,
// creationTimestamp, managedFields) is never compared.
// A field the expected object has and the stored one lacks is said with
// why it was dropped (see dropped).
func matches(file string, line int, stored map[string]any, expectedText string, why dropped) Result {
	if expectedText == "" {
		return Result{Status: Passed}
	}
	expected, err := decodeYAML(expectedText)
	if err != nil {
		return errored(positioned(file, line, "expected", err))
	}
	if expected == nil {
		return errored(positioned(file, line, "expected", errors.New("not an object")))
	}
	got := projection(stored, expected)
	want := projection(expected, expected)
	if reflect.DeepEqual(plain(got), plain(want)) {
		return Result{Status: Passed}
	}
	diff := YAMLDiff(want, got, "expected", "stored")
	msg := "the stored object is not the expected one"
	for _, path := range missing(want, got, "") {
		msg += "\n" + why.reason(path)
	}
	return Result{Status: Failed, Message: msg, Diff: diff}
}

// YAMLDiff is a unified diff of a and b written as YAML, named from and
// to.
func YAMLDiff(a, b any, from, to string) string {
	aYAML, _ := yaml.Marshal(a)
	bYAML, _ := yaml.Marshal(b)
	diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(aYAML)), B: difflib.SplitLines(string(bYAML)),
		FromFile: from, ToFile: to, Context: 3,
	})
	return diff
}

// dropped is what tells why a field was not stored: the version the
// object was written at, the fields its schema did not know, and the
// object as the case wrote it.
type dropped struct {
	crd     *apiextensionsv1.CustomResourceDefinition
	version string
	unknown []string
	sent    map[string]any
}

// reason says why the field at path, which the expected object has, is
// not in the stored one, where that is known; else only that it is not.
func (d dropped) reason(path string) string {
	for _, u := range d.unknown {
		if path == u || strings.HasPrefix(path, u+".") || strings.HasPrefix(path, u+"[") {
			return fmt.Sprintf("%s: not stored: %s is unknown to the schema of %s, and the server prunes it", path, u, d.version)
		}
	}
	if storage, err := apihelpers.GetCRDStorageVersion(d.crd); err == nil && storage != d.version {
		return fmt.Sprintf("%s: not stored: the storage version %s's schema does not keep it (the object is stored at %s and read back at %s)", path, storage, storage, d.version)
	}
	switch v, ok := lookup(d.sent, path); {
	case !ok:
		return fmt.Sprintf("%s: not stored: the object written does not have it, and nothing defaults it", path)
	case v == nil:
		return fmt.Sprintf("%s: not stored: written as null, which the server drops where the schema allows no null", path)
	}
	return fmt.Sprintf("%s: not stored", path)
}

// lookup finds the value at a path of missing's form in v.
func lookup(v any, path string) (any, bool) {
	found, at := false, any(nil)
	walk(v, "", func(p string, e any) bool {
		if p == path {
			found, at = true, e
		}
		return !found && (p == "" || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"["))
	})
	return at, found
}

// walk calls f with each value of v and its path, in missing's form,
// into those f says to look into.
func walk(v any, at string, f func(path string, v any) bool) {
	if !f(at, v) {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			path := k
			if at != "" {
				path = at + "." + k
			}
			walk(e, path, f)
		}
	case []any:
		for i, e := range x {
			walk(e, fmt.Sprintf("%s[%d]", at, i), f)
		}
	}
}

// missing are the paths of want's fields that got lacks, in order; a
// field both hold is looked into, lists item by item.
func missing(want, got any, at string) []string {
	var out []string
	switch w := want.(type) {
	case map[string]any:
		g, _ := got.(map[string]any)
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			path := k
			if at != "" {
				path = at + "." + k
			}
			gv, ok := g[k]
			if !ok {
				out = append(out, path)
				continue
			}
			out = append(out, missing(w[k], gv, path)...)
		}
	case []any:
		g, _ := got.([]any)
		for i := range min(len(w), len(g)) {
			out = append(out, missing(w[i], g[i], fmt.Sprintf("%s[%d]", at, i))...)
		}
	}
	return out
}

// serverSet are the metadata fields the server sets alone, or generates.
var serverSet = map[string]bool{"name": true, "namespace": true, "generateName": true, "uid": true, "resourceVersion": true,
	"generation": true, "creationTimestamp": true, "managedFields": true}

// projection is what of obj a comparison with expected looks at.
func projection(obj, expected map[string]any) map[string]any {
	out := map[string]any{}
	for k := range expected {
		switch k {
		case "apiVersion", "kind":
		case "metadata":
			em, _ := expected[k].(map[string]any)
			om, _ := obj[k].(map[string]any)
			meta := map[string]any{}
			for mk := range em {
				if !serverSet[mk] {
					meta[mk] = om[mk]
				}
			}
			if len(meta) > 0 {
				out[k] = meta
			}
		default:
			out[k] = obj[k]
		}
	}
	return out
}

// plain is v as JSON reads it, so that an int and a float of the same
// value compare equal, as they do on the wire.
func plain(v any) any {
	data, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}
