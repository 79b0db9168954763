package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// versionWide runs the checks of a version as a whole.
func (l *crdLint) versionWide(v apiextensionsv1.CustomResourceDefinitionVersion, root *node) {
	status, hasStatus := root.s.Properties["status"]
	subresource := v.Subresources != nil && v.Subresources.Status != nil
	switch {
	case hasStatus && !subresource:
		// Of the kind, as kube-api-linter says it (the root type lacks
		// the marker), at its status field.
		l.add(&node{s: &status, doc: root.doc + ".properties.status", field: ""}, "statussubresource",
			"a status without the status subresource: a user's update of the object can write status, and a controller's status write bumps spec's generation", "set subresources: {status: {}} (controller-gen: +kubebuilder:subresource:status)")
	case subresource && !hasStatus:
		l.add(nil, "statussubresource", "the status subresource without a status field: status writes keep nothing", "describe status in the schema, or drop the subresource (controller-gen: +kubebuilder:subresource:status)")
	}
	if slices.Contains(root.s.Required, "status") {
		l.add(&node{s: &status, doc: root.doc + ".properties.status", field: "status"}, "statusoptional", "a required status: an object cannot be created before its controller has written status", "drop status from required (controller-gen: +optional)")
	}
	for _, name := range status.Required {
		if field, ok := status.Properties[name]; ok {
			l.add(&node{s: &field, doc: root.doc + ".properties.status.properties." + name, field: "status." + name}, "statusoptional",
				"a required status field: a controller must write it in its first status write, whatever it knows then", "make "+name+" optional (drop it from status.required; controller-gen: +optional)")
		}
	}
	if v.Deprecated && v.Served && v.DeprecationWarning == nil {
		l.add(nil, "deprecation-warning", "a deprecated version without deprecationWarning: clients get the server's generic warning, which names no replacement", "set deprecationWarning: what to use instead (controller-gen: +kubebuilder:deprecatedversion:warning=\"...\")")
	}
	if root.s.XPreserveUnknownFields != nil && *root.s.XPreserveUnknownFields {
		l.add(root, "preserve-unknown-fields", "x-kubernetes-preserve-unknown-fields on the whole object: nothing in it is pruned or validated", "describe its fields; keep unknown fields (controller-gen: +kubebuilder:pruning:PreserveUnknownFields) only where free-form data is meant")
	}
	for i, c := range v.AdditionalPrinterColumns {
		if why := columnPath(root.s, c.JSONPath); why != "" {
			col := &node{s: root.s, doc: fmt.Sprintf("%s.additionalPrinterColumns[%d].jsonPath", l.docPath, i), field: ""}
			l.add(col, "printercolumn-path", fmt.Sprintf("the printer column %q: %s: the column is always empty", c.Name, why), "point jsonPath at a field of the version (controller-gen: +kubebuilder:printcolumn:JSONPath=...)")
		}
	}
}

// columnPath says why a printer column's JSONPath names no field of the
// schema ("" when it does, or cannot tell).
func columnPath(root *apiextensionsv1.JSONSchemaProps, path string) string {
	s := root
	var walked []string
	for _, step := range jsonPathSteps(path) {
		if s.XPreserveUnknownFields != nil && *s.XPreserveUnknownFields || s.XEmbeddedResource {
			return ""
		}
		if step == "[]" {
			if s.Items == nil || s.Items.Schema == nil {
				return ""
			}
			s = s.Items.Schema
			continue
		}
		if step == "metadata" && len(walked) == 0 {
			return "" // the server's own
		}
		next, ok := s.Properties[step]
		switch {
		case ok:
			s = &next
		case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
			s = s.AdditionalProperties.Schema
		default:
			return fmt.Sprintf("%s has no field %s", strings.Join(append([]string{""}, walked...), "."), step)
		}
		walked = append(walked, step)
	}
	return ""
}

// jsonPathSteps are the field names of a simple JSONPath (.a.b[0].c,
// .a[?(@.x=="y")].b), "[]" for a step into a list; nil for what it does
// not read (recursive descent, unions).
func jsonPathSteps(path string) []string {
	path = strings.TrimSpace(strings.Trim(strings.TrimSpace(path), "{}"))
	if strings.Contains(path, "..") || strings.Contains(path, ",") {
		return nil
	}
	var out []string
	for path != "" {
		switch path[0] {
		case '.':
			path = path[1:]
		case '[':
			end := strings.Index(path, "]")
			if end < 0 {
				return nil
			}
			inner := path[1:end]
			if q := strings.Trim(inner, `'"`); q != inner {
				out = append(out, q)
			} else {
				out = append(out, "[]")
			}
			path = path[end+1:]
		default:
			end := strings.IndexAny(path, ".[")
			if end < 0 {
				end = len(path)
			}
			out = append(out, path[:end])
			path = path[end:]
		}
	}
	return out
}

// costBounds are, per version and field, the bound cost's estimator
// finds for a rule the field drives: present (possibly nil) for every
// unbounded field a rule's cost grows with.
func costBounds(est cost.CRD) map[string]map[string]*int64 {
	byVersion := map[string]map[string]*int64{}
	for _, v := range est.Versions {
		out := map[string]*int64{}
		byVersion[v.Name] = out
		for _, r := range v.Rules {
			for _, d := range r.Drivers {
				if b, seen := out[d.Field]; !seen || b == nil && d.Bound != nil || b != nil && d.Bound != nil && *d.Bound < *b {
					out[d.Field] = d.Bound
				}
			}
		}
	}
	return byVersion
}
