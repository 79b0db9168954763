package crdtest

import (
	"encoding/json"
	"errors"
	"reflect"

	"github.com/pmezard/go-difflib/difflib"
	"sigs.k8s.io/yaml"
)

// matches compares the stored object with what a case expects ("":
// nothing to compare): every top-level field the expected object has
// (spec, status, any other), and of its metadata the fields it names,
// but its name and namespace (the server generates one, and places the
// object); what the server sets alone (uid, resourceVersion, generation,
// creationTimestamp, managedFields) is never compared.
func matches(file string, line int, stored map[string]any, expectedText string) Result {
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
	gotYAML, _ := yaml.Marshal(got)
	wantYAML, _ := yaml.Marshal(want)
	diff, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(wantYAML)), B: difflib.SplitLines(string(gotYAML)),
		FromFile: "expected", ToFile: "stored", Context: 3,
	})
	return Result{Status: Failed, Message: "the stored object is not the expected one", Diff: diff}
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
