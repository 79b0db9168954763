package diff

import (
	"bytes"
	"encoding/json"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

func typeName(s *apiextensionsv1.JSONSchemaProps) string {
	switch {
	case s.XIntOrString:
		return "int-or-string"
	case s.Type == "":
		return "any"
	}
	return s.Type
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return equality.Semantic.DeepEqual(x, y)
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func or(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	return s
}

func fieldOrRoot(f string) string {
	if f == "" {
		return "."
	}
	return f
}

// join is the path of the property name in field ("" at the root).
func join(field, name string) string {
	if field == "" {
		return name
	}
	return field + "." + name
}
