package openapi

import (
	"fmt"
	"path"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Layout names the client that reads a directory of exported files, and
// so where each file goes in it.
type Layout string

const (
	// LayoutKubeconform is kubeconform's -schema-location templates
	// {{.ResourceKind}}_{{.ResourceAPIVersion}}.json and, with the group,
	// {{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json: each JSON
	// Schema is written at both paths, so that either template finds it.
	LayoutKubeconform Layout = "kubeconform"
	// LayoutVSCode is the CRD catalog layout yaml-language-server's
	// yaml.kubernetesCRDStore reads (that of datreeio/CRDs-catalog):
	// group/kind_version.json, lower-case.
	LayoutVSCode Layout = "vscode"
	// LayoutKubectlValidate is the server's own paths, apis/GROUP/VERSION.json
	// OpenAPI v3 documents, which kubectl-validate's --local-schemas reads.
	LayoutKubectlValidate Layout = "kubectl-validate"
)

// Layouts are the layouts there are, in the order --help lists them.
var Layouts = []Layout{LayoutKubeconform, LayoutVSCode, LayoutKubectlValidate}

// JSONSchemas reports whether the layout holds JSON Schemas (one per kind
// and version) rather than OpenAPI documents (one per group version).
func (l Layout) JSONSchemas() bool {
	return l == LayoutKubeconform || l == LayoutVSCode
}

// SchemaFile is one JSON Schema file of a layout: the schema of a CRD's
// version, at a slash-separated path relative to the directory.
type SchemaFile struct {
	Path    string
	CRD     *apiextensionsv1.CustomResourceDefinition
	Version string
}

// SchemaFiles lays out the JSON Schemas of the CRDs' served versions. A
// path without the group that two groups' kinds would share (Gateway v1 of
// gateway.networking.k8s.io and of another group) is left out, so that
// neither schema checks the other's objects, and given in the second
// result with the groups.
func (l Layout) SchemaFiles(crds []*apiextensionsv1.CustomResourceDefinition) ([]SchemaFile, []string) {
	var files []SchemaFile
	groups := map[string][]string{} // a path without the group: the groups that want it
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			name := strings.ToLower(crd.Spec.Names.Kind + "_" + v.Name + ".json")
			files = append(files, SchemaFile{path.Join(strings.ToLower(crd.Spec.Group), name), crd, v.Name})
			if l == LayoutKubeconform {
				files = append(files, SchemaFile{name, crd, v.Name})
				groups[name] = append(groups[name], crd.Spec.Group)
			}
		}
	}
	var ambiguous []string
	files = slices.DeleteFunc(files, func(f SchemaFile) bool { return len(groups[f.Path]) > 1 })
	for name, gs := range groups {
		if len(gs) > 1 {
			ambiguous = append(ambiguous, fmt.Sprintf("%s (%s)", name, strings.Join(gs, ", ")))
		}
	}
	slices.Sort(ambiguous)
	return files, ambiguous
}

// DocumentPath is the slash-separated path, relative to the directory, of
// the OpenAPI v3 document of a group version: the server's URL path
// under /openapi/v3, with ext (json or yaml) as its extension.
func DocumentPath(gv schema.GroupVersion, ext string) string {
	if gv.Group == "" {
		return path.Join("api", gv.Version+"."+ext)
	}
	return path.Join("apis", gv.Group, gv.Version+"."+ext)
}
