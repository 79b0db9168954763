package kal

import (
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/lint"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// goOnly says why a KAL finding on a field is about what only the Go
// source holds, which the CRD made of it does not show (""; it does
// show): struct tags, the order of fields, strategic-merge-patch markers,
// and embedded structs KAL does not look into. field is the field's
// schema, parent its parent's (nil at the root).
func goOnly(k kalFinding, field, parent *apiextensionsv1.JSONSchemaProps, path string) string {
	switch k.Linter {
	case "conditions":
		switch {
		case strings.Contains(k.Message, "has incorrect tags"):
			return "struct tags (patchStrategy, protobuf)"
		case strings.Contains(k.Message, "must be the first field"):
			return "the order of Go fields"
		}
		if _, list, ok := strings.Cut(k.Message, "missing the following markers: "); ok {
			for _, m := range strings.Split(list, ", ") {
				switch m {
				case "patchStrategy=merge", "patchMergeKey=type":
				case "optional":
					if parent != nil && slices.Contains(parent.Required, lastName(path)) {
						return ""
					}
				default:
					return ""
				}
			}
			return "strategic-merge-patch markers, or +optional on a field the schema has optional"
		}
	case "arrayofstruct":
		if field.Items != nil && field.Items.Schema != nil && len(field.Items.Schema.Required) > 0 {
			return "the items require a field of an embedded struct, which KAL does not look into"
		}
	case "minlength":
		if strings.Contains(k.Message, "must have either a required field") && (len(field.Required) > 0 || field.Items != nil && field.Items.Schema != nil && len(field.Items.Schema.Required) > 0) {
			return "the object requires a field of an embedded struct, which KAL does not look into"
		}
	case "nomaps":
		if v := field.AdditionalProperties; v != nil && v.Schema != nil && v.Schema.Type == "string" {
			return "a map of strings to strings (which KAL allows) whose key or value type is of another package, which KAL does not resolve"
		}
	case "nodurations":
		if field.Type == "string" && field.Format == "" {
			return "a metav1.Duration: controller-gen writes it as a plain string, which says nothing of a duration"
		}
	case "statusoptional":
		if parent != nil && !slices.Contains(parent.Required, lastName(path)) {
			return "+optional missing on a field the schema has optional (omitempty)"
		}
	}
	return ""
}

func lastName(path string) string {
	return path[strings.LastIndex(path, ".")+1:]
}

// reason is why a lint finding has no KAL finding: the class of each
// lint finding KAL does not report.
// d is the finding's field in Go (zero: not a Go field, or the kind
// itself).
func reason(f *lint.Finding, twins map[string]bool, out oracleOutput, d declared) string {
	switch {
	case !twins[f.Check]:
		return "schema only: KAL has no linter of this check"
	case !slices.Contains(out.Linters, f.Check):
		return "KAL's linter did not run"
	case d.Package != "" && !slices.Contains(out.Packages, d.Package):
		return "a field of a type of another module (" + d.Package + "): KAL checks the packages it is given only"
	case d.TypePackage != "" && d.TypePackage != d.Package:
		return "a field whose type is declared in another package (" + d.TypePackage + "): KAL does not read that package's markers"
	case d.Field == "" && f.Field != "":
		return "a field the Go types do not have: the CRD was made from other versions of the types or their dependencies"
	case f.Check == "defaultorrequired" && !slices.ContainsFunc(d.Markers, func(m string) bool {
		return m == "+required" || m == "+kubebuilder:validation:Required" || m == "+k8s:required"
	}):
		return "required in the schema for want of omitempty, with no +required marker: KAL's defaultorrequired compares markers"
	case f.Check == "maxlength" && strings.Contains(f.Message, "map"):
		return "a map: KAL's maxlength bounds strings and lists"
	case f.Check == "maxlength" && strings.HasSuffix(f.Field, "[*]") && d.TypePackage == "":
		return "a map's string values: KAL's maxlength bounds strings and lists"
	}
	return "the check differs: " + f.Check
}
