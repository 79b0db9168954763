package catalog

import (
	"fmt"
	"sort"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/version"
)

// DeprecationWarning is the warning the server sends with every request to a
// deprecated version: the CRD's own text, or else one that names the newest
// served version that is not deprecated.
func DeprecationWarning(crd *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion) string {
	if v.DeprecationWarning != nil {
		return *v.DeprecationWarning
	}
	spec := crd.Spec
	msg := fmt.Sprintf("%s/%s %s is deprecated", spec.Group, v.Name, spec.Names.Kind)
	var newer []string
	for _, o := range spec.Versions {
		if o.Served && !o.Deprecated && version.CompareKubeAwareVersionStrings(v.Name, o.Name) < 0 {
			newer = append(newer, o.Name)
		}
	}
	if len(newer) == 0 {
		return msg
	}
	sort.Slice(newer, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(newer[i], newer[j]) > 0 })
	return msg + fmt.Sprintf("; use %s/%s %s", spec.Group, newer[0], spec.Names.Kind)
}
