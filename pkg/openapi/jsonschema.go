package openapi

import (
	"encoding/json"
	"fmt"
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kube-openapi/pkg/validation/strfmt"
	"k8s.io/kube-openapi/pkg/validation/validate"
)

// JSONSchemaDraft is the JSON Schema dialect of the exported schemas.
const JSONSchemaDraft = "http://json-schema.org/draft-07/schema#"

// JSONSchema turns a CRD version's schema into a standalone JSON Schema
// (draft 7) for editors and offline checkers (kubeconform,
// yaml-language-server). Every OpenAPI v3.0 keyword whose meaning differs
// in draft 7 is translated: every object the server would prune gets
// "additionalProperties": false; the fields the server always keeps
// (apiVersion, kind, metadata at the root and in embedded resources) are
// allowed; exclusiveMinimum and exclusiveMaximum become the numeric bounds
// draft 7 expects; int-or-string becomes a choice of integer or string;
// nullable lets null through type and anyOf (not enum: the server
// refuses a null its enum does not list); a required field with a
// default is not required (the server fills it in before it checks), and
// a branch of allOf, anyOf, oneOf or not that the default fails requires
// the field;
// format is dropped, since Kubernetes' formats are not JSON Schema's (a
// draft 7 "uri" needs a scheme, Kubernetes' does not; "int32", "byte" and
// "duration" are unknown to draft 7). What JSON Schema cannot say (CEL,
// list types, formats, metadata rules) is left to the server.
func JSONSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (map[string]any, error) {
	val, err := apihelpers.GetSchemaForVersion(crd, version)
	if err != nil || val == nil || val.OpenAPIV3Schema == nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s has no schema for version %q", crd.Name, version)
	}
	data, err := json.Marshal(val.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	convert(root, true, crd.Spec.PreserveUnknownFields)
	props := root["properties"].(map[string]any)
	props["apiVersion"] = map[string]any{"type": "string", "enum": []any{crd.Spec.Group + "/" + version}}
	props["kind"] = map[string]any{"type": "string", "enum": []any{crd.Spec.Names.Kind}}
	root["$schema"] = JSONSchemaDraft
	root["title"] = fmt.Sprintf("%s (%s/%s)", crd.Spec.Names.Kind, crd.Spec.Group, version)
	return root, nil
}

// exclusiveBound turns OpenAPI v3.0's boolean exclusive bound (beside the
// bound itself) into draft 7's numeric one.
func exclusiveBound(s map[string]any, bound, exclusive string) {
	ex, ok := s[exclusive].(bool)
	if !ok {
		return
	}
	delete(s, exclusive)
	if v, has := s[bound]; ex && has {
		s[exclusive] = v
		delete(s, bound)
	}
}

// requireUnlessDefaultFits keeps the meaning of allOf, anyOf, oneOf and
// not over fields with a default. The server defaults before it validates,
// so an absent field is its default there; to a JSON Schema consumer it is
// absent, and a branch's properties say nothing of it. A branch whose
// condition on such a field the default does not meet (as the server's
// own validator judges it) therefore requires the field: absent, it
// fails, as the default fails on the server.
func requireUnlessDefaultFits(s map[string]any) {
	props, _ := s["properties"].(map[string]any)
	defaults := map[string]any{}
	for k, p := range props {
		if pm, ok := p.(map[string]any); ok && pm["default"] != nil {
			defaults[k] = pm["default"]
		}
	}
	if len(defaults) == 0 {
		return
	}
	var branches []map[string]any
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		list, _ := s[k].([]any)
		for _, b := range list {
			if bm, ok := b.(map[string]any); ok {
				branches = append(branches, bm)
			}
		}
	}
	if not, ok := s["not"].(map[string]any); ok {
		branches = append(branches, not)
	}
	for _, b := range branches {
		bprops, _ := b["properties"].(map[string]any)
		for k, cond := range bprops {
			d, ok := defaults[k]
			if !ok || fits(cond, d) {
				continue
			}
			required, _ := b["required"].([]any)
			if !slices.Contains(required, any(k)) {
				b["required"] = append(required, k)
			}
		}
	}
}

// fits tells whether a value meets an OpenAPI schema, as the server's
// validator (kube-openapi's) judges it.
func fits(schema, value any) bool {
	data, err := json.Marshal(schema)
	if err != nil {
		return true
	}
	var sch spec.Schema
	if err := json.Unmarshal(data, &sch); err != nil {
		return true
	}
	return validate.NewSchemaValidator(&sch, nil, "", strfmt.Default).Validate(value).IsValid()
}

// convert rewrites one schema node and everything below it. resourceRoot
// marks the root of a resource (the CRD's or an embedded one), where the
// server keeps apiVersion, kind and metadata whatever the schema says.
func convert(s map[string]any, resourceRoot, preserve bool) {
	if b, _ := s["x-kubernetes-preserve-unknown-fields"].(bool); b {
		preserve = true
	}
	embedded, _ := s["x-kubernetes-embedded-resource"].(bool)
	resourceRoot = resourceRoot || embedded
	isObject := s["type"] == "object"

	if b, _ := s["x-kubernetes-int-or-string"].(bool); b {
		delete(s, "type")
		if _, ok := s["anyOf"]; !ok {
			s["anyOf"] = []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
		}
	}
	if b, _ := s["nullable"].(bool); b {
		if t, ok := s["type"].(string); ok {
			s["type"] = []any{t, "null"}
		}
		if anyOf, ok := s["anyOf"].([]any); ok {
			s["anyOf"] = append(anyOf, map[string]any{"type": "null"})
		}
	}
	delete(s, "nullable")
	exclusiveBound(s, "minimum", "exclusiveMinimum")
	exclusiveBound(s, "maximum", "exclusiveMaximum")
	delete(s, "format")
	if required, ok := s["required"].([]any); ok {
		props, _ := s["properties"].(map[string]any)
		var kept []any
		for _, r := range required {
			if p, _ := props[fmt.Sprint(r)].(map[string]any); p == nil || p["default"] == nil {
				kept = append(kept, r)
			}
		}
		if len(kept) == 0 {
			delete(s, "required")
		} else {
			s["required"] = kept
		}
	}
	if resourceRoot {
		props, _ := s["properties"].(map[string]any)
		if props == nil {
			props = map[string]any{}
			s["properties"] = props
		}
		for _, k := range []string{"apiVersion", "kind"} {
			if _, ok := props[k]; !ok {
				props[k] = map[string]any{"type": "string"}
			}
		}
		// The server validates metadata as ObjectMeta: its fields are never
		// pruned, whatever the schema lists.
		if _, ok := props["metadata"]; !ok {
			props["metadata"] = map[string]any{"type": "object"}
		}
	}
	requireUnlessDefaultFits(s)
	if props, ok := s["properties"].(map[string]any); ok {
		for k, p := range props {
			if ps, ok := p.(map[string]any); ok {
				convert(ps, false, resourceRoot && k == "metadata")
			}
		}
	}
	if items, ok := s["items"].(map[string]any); ok {
		convert(items, false, false)
	}
	if ap, ok := s["additionalProperties"].(map[string]any); ok {
		convert(ap, false, false)
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if list, ok := s[k].([]any); ok {
			for _, x := range list {
				if xs, ok := x.(map[string]any); ok {
					convert(xs, false, true)
				}
			}
		}
	}
	if not, ok := s["not"].(map[string]any); ok {
		convert(not, false, true)
	}
	if isObject && !preserve {
		if _, ok := s["additionalProperties"]; !ok {
			s["additionalProperties"] = false
		}
	}
}
