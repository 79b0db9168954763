package flux

import (
	"context"
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func object(t *testing.T, text string) *unstructured.Unstructured {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(text), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

// TestHelmValues holds the merge to helm-controller's rules: valuesFrom in
// order (maps merged key by key, a later value replacing), targetPath
// with --set's typing (a quoted value a string; literal as it is),
// optional references that are missing skipped, spec.values over all.
func TestHelmValues(t *testing.T) {
	r := &renderer{ctx: context.Background()}
	for _, text := range []string{`
apiVersion: v1
kind: ConfigMap
metadata: {name: base, namespace: apps}
data:
  values.yaml: |
    a: 1
    nested: {x: 1, q: 1}
    list: [1, 2]
  custom: |
    nested: {q: 2}
    list: [3]
  tag: 1.2.3
  quoted: '"007"'
  count: "5"
  commas: a,b
`, `
apiVersion: v1
kind: Secret
metadata: {name: creds, namespace: apps}
data:
  values.yaml: ` + base64.StdEncoding.EncodeToString([]byte("password: from-data\n")) + `
stringData:
  extra.yaml: "token: from-stringData"
`} {
		r.objects = append(r.objects, rendered{obj: object(t, text)})
	}
	hr := &fluxObject{kind: kindHelmRelease, obj: object(t, `
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: web, namespace: apps}
spec:
  valuesFrom:
  - {kind: ConfigMap, name: base}
  - {kind: ConfigMap, name: base, valuesKey: custom}
  - {kind: Secret, name: creds}
  - {kind: Secret, name: creds, valuesKey: extra.yaml}
  - {kind: ConfigMap, name: base, valuesKey: tag, targetPath: image.tag}
  - {kind: ConfigMap, name: base, valuesKey: quoted, targetPath: code}
  - {kind: ConfigMap, name: base, valuesKey: count, targetPath: count}
  - {kind: ConfigMap, name: base, valuesKey: commas, targetPath: words, literal: true}
  - {kind: ConfigMap, name: absent, optional: true}
  - {kind: ConfigMap, name: base, valuesKey: absent, optional: true}
  values:
    a: 9
    nested: {z: 3}
`)}
	got, err := r.helmValues(hr)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"a":        float64(9),
		"nested":   map[string]any{"x": float64(1), "q": float64(2), "z": float64(3)},
		"list":     []any{float64(3)},
		"password": "from-data",
		"token":    "from-stringData",
		"image":    map[string]any{"tag": "1.2.3"},
		"code":     "007",
		"count":    int64(5),
		"words":    "a,b",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("values\n%#v\nwant\n%#v", got, want)
	}

	for ref, msg := range map[string]string{
		"{kind: ConfigMap, name: absent}":                  "could not resolve ConfigMap chart values reference 'apps/absent' with key 'values.yaml': resource not found",
		"{kind: ConfigMap, name: base, valuesKey: absent}": "could not resolve ConfigMap chart values reference 'apps/base' with key 'absent': key not found",
		"{kind: Bucket, name: base}":                       "unsupported values reference kind",
	} {
		hr := &fluxObject{kind: kindHelmRelease, obj: object(t, "metadata: {name: web, namespace: apps}\nspec:\n  valuesFrom:\n  - "+ref)}
		_, err := r.helmValues(hr)
		var fe fieldError
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", ref, err, msg)
		} else if !asFieldError(err, &fe) || strings.Join(fe.field, ".") != "spec.valuesFrom[0]" {
			t.Errorf("%s: %v is not placed at spec.valuesFrom[0]", ref, err)
		}
	}
}

func asFieldError(err error, fe *fieldError) bool {
	e, ok := err.(fieldError)
	*fe = e
	return ok
}
