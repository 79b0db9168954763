package lint

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// What the server refuses in a new CRD but keeps in one already stored
// (its checks of an update let an old CRD's flaws stand), and what a CRD
// not yet applied may hold: lint reports them at their fields, with the
// server's own words where the server has them.

// listMapKeys reports a list-map key that is neither required nor
// defaulted: an item without it has no key.
func (l *crdLint) listMapKeys(n *node) {
	s := n.s
	if s.XListType == nil || *s.XListType != "map" {
		return
	}
	items := itemSchema(s)
	if items == nil {
		return
	}
	for _, k := range s.XListMapKeys {
		key, ok := items.Properties[k]
		if !ok || key.Default != nil || slices.Contains(items.Required, k) {
			continue
		}
		l.add(&node{s: &key, doc: n.doc + ".items.properties." + k, field: n.field + "[*]." + k}, "listmap-key",
			fmt.Sprintf("the list-map key %s is neither required nor defaulted: an item without it has no key, and the server refuses a new CRD with it", k),
			"make "+k+" required (controller-gen: +required), or give it a default (+kubebuilder:default)")
	}
}

// defaults reports the defaults the server's own check of a CRD's
// defaults refuses (its schema, its rules, unknown fields, metadata), at
// the field the default is on.
func (l *crdLint) defaults(v apiextensionsv1.CustomResourceDefinitionVersion) {
	if l.ignored["default-value"] || v.Schema == nil || v.Schema.OpenAPIV3Schema == nil || !hasDefault(v.Schema.OpenAPIV3Schema) {
		return
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v.Schema.OpenAPIV3Schema, internal, nil); err != nil {
		return
	}
	s, err := structuralschema.NewStructural(internal)
	if err != nil {
		return // not structural: the server refuses the CRD for that first
	}
	errs, err := structuraldefaulting.ValidateDefaults(context.Background(), field.NewPath("schema"), s, true, true)
	if err != nil {
		return
	}
	for _, e := range errs {
		doc, fieldPath, ok := defaultPlace(e.Field)
		if !ok {
			continue
		}
		why := e.ErrorBody()
		if d := strings.TrimSpace(e.Detail); d != "" {
			why = d
		}
		l.add(&node{doc: l.docPath + ".schema.openAPIV3Schema" + doc, field: fieldPath}, "default-value",
			"a default the server refuses: "+why, "change the default to a value the field accepts (controller-gen: +kubebuilder:default)")
	}
}

// defaultPlace turns the server's path of a default's error
// (schema.properties[spec].items.default.name) into the place of the
// field the default is on: its path under the schema in the document
// (.properties.spec.items) and in objects (spec[*]).
func defaultPlace(path string) (doc, obj string, ok bool) {
	rest, ok := strings.CutPrefix(path, "schema")
	if !ok {
		return "", "", false
	}
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, ".default"):
			return doc, obj, true
		case strings.HasPrefix(rest, ".properties["):
			end := strings.Index(rest, "]")
			if end < 0 {
				return "", "", false
			}
			name := rest[len(".properties["):end]
			doc, obj, rest = doc+".properties."+name, join(obj, name), rest[end+1:]
		case strings.HasPrefix(rest, ".items"):
			doc, obj, rest = doc+".items", obj+"[*]", rest[len(".items"):]
		case strings.HasPrefix(rest, ".additionalProperties"):
			doc, obj, rest = doc+".additionalProperties", obj+"[*]", rest[len(".additionalProperties"):]
		default:
			return "", "", false
		}
	}
	return "", "", false
}

func hasDefault(s *apiextensionsv1.JSONSchemaProps) bool {
	if s.Default != nil {
		return true
	}
	for _, p := range s.Properties {
		if hasDefault(&p) {
			return true
		}
	}
	if a := s.AdditionalProperties; a != nil && a.Schema != nil && hasDefault(a.Schema) {
		return true
	}
	return s.Items != nil && s.Items.Schema != nil && hasDefault(s.Items.Schema)
}
