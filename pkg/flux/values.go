package flux

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"helm.sh/helm/v3/pkg/strvals"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// helmValues merges a HelmRelease's values as helm-controller does
// (fluxcd/pkg/chartutil's ChartValuesFromReferences): each valuesFrom in
// order, a whole values document merged, or one value set at targetPath
// with Helm's --set syntax (spec.values merged first, as there); then
// spec.values over all. The chart's defaults are Helm's to add.
func (r *renderer) helmValues(f *fluxObject) (map[string]any, error) {
	values, _, _ := unstructured.NestedMap(f.obj.Object, "spec", "values")
	refs, _, _ := unstructured.NestedSlice(f.obj.Object, "spec", "valuesFrom")
	result := map[string]any{}
	for i, item := range refs {
		ref, _ := item.(map[string]any)
		field := []string{"spec", "valuesFrom[" + fmt.Sprint(i) + "]"}
		s := func(k string) string { v, _ := ref[k].(string); return v }
		b := func(k string) bool { v, _ := ref[k].(bool); return v }
		kind, name, key, target := s("kind"), s("name"), s("valuesKey"), s("targetPath")
		if key == "" {
			key = "values.yaml"
		}
		what := fmt.Sprintf("%s chart values reference '%s/%s' with key '%s'", kind, f.namespace(), name, key)
		if b("optional") {
			what = "optional " + what
		}
		if kind != "ConfigMap" && kind != "Secret" {
			return nil, fieldError{field, fmt.Errorf("could not resolve %s: unsupported values reference kind", what)}
		}
		obj, err := r.lookup(r.ctx, kind, f.namespace(), name)
		if err != nil {
			return nil, fieldError{field, fmt.Errorf("could not resolve %s: %w", what, err)}
		}
		if obj == nil {
			if b("optional") {
				continue
			}
			return nil, fieldError{field, fmt.Errorf("could not resolve %s: %w", what, errNotFound)}
		}
		data, ok := valuesData(kind, obj, key)
		if !ok {
			if b("optional") {
				continue
			}
			return nil, fieldError{field, fmt.Errorf("could not resolve %s: key not found", what)}
		}
		if target != "" {
			result = mergeMaps(result, values)
			set := replacePathValue
			if b("literal") {
				set = replacePathLiteralValue
			}
			if err := set(result, target, data); err != nil {
				return nil, fieldError{field, fmt.Errorf("could not resolve %s: %w", what, err)}
			}
			continue
		}
		v, err := readValues([]byte(data))
		if err != nil {
			return nil, fieldError{field, fmt.Errorf("could not resolve %s: failed to read values data: %w", what, err)}
		}
		result = mergeMaps(result, v)
	}
	return mergeMaps(result, values), nil
}

// errNotFound: a ConfigMap or Secret that valuesFrom names is found
// nowhere (helm-controller's words).
var errNotFound = errors.New("resource not found")

// valuesData is a ConfigMap's data[key], or a Secret's (stringData as the
// server stores it in data).
func valuesData(kind string, obj map[string]any, key string) (string, bool) {
	if kind == "Secret" {
		obj = withStringData(obj)
	}
	v, ok, _ := unstructured.NestedString(obj, "data", key)
	if !ok || kind != "Secret" {
		return v, ok
	}
	b, err := base64.StdEncoding.DecodeString(v)
	return string(b), err == nil
}

// readValues reads a values document as Helm does: empty is no values.
func readValues(data []byte) (map[string]any, error) {
	var v map[string]any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	if v == nil {
		v = map[string]any{}
	}
	return v, nil
}

// mergeMaps merges b over a: maps merge key by key, anything else of b
// replaces a's.
func mergeMaps(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		if bm, ok := v.(map[string]any); ok {
			if am, ok := out[k].(map[string]any); ok {
				out[k] = mergeMaps(am, bm)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// replacePathValue sets value at path as helm --set does, a quoted value
// as a string (helm --set-string).
func replacePathValue(values map[string]any, path, value string) error {
	quoted := strings.HasPrefix(value, "'") && strings.HasSuffix(value, "'") || strings.HasPrefix(value, `"`) && strings.HasSuffix(value, `"`)
	if quoted {
		return strvals.ParseIntoString(path+"="+strings.Trim(value, `'"`), values)
	}
	return strvals.ParseInto(path+"="+value, values)
}

// replacePathLiteralValue sets value at path as a string, as it is.
func replacePathLiteralValue(values map[string]any, path, value string) error {
	esc := strings.NewReplacer(`\`, `\\`, `,`, `\,`, `[`, `\[`, `]`, `\]`, `{`, `\{`, `}`, `\}`)
	return strvals.ParseIntoString(path+"="+esc.Replace(value), values)
}
