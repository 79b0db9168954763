package catalog

import (
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Outline is what resolving names and versions and listing CRDs need of
// a CRD: its name, labels, feature-set annotations and creation time,
// group, names, scope,
// versions (with their subresources), conversion and status, without the
// schemas and without the rest of its metadata.
func Outline(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	o := &apiextensionsv1.CustomResourceDefinition{}
	o.Name, o.Labels, o.CreationTimestamp = crd.Name, crd.Labels, crd.CreationTimestamp
	o.Annotations = releaseAnnotations(crd.Annotations)
	o.Spec.Group, o.Spec.Names, o.Spec.Scope, o.Spec.Conversion = crd.Spec.Group, crd.Spec.Names, crd.Spec.Scope, crd.Spec.Conversion
	o.Status = crd.Status
	for _, v := range crd.Spec.Versions {
		o.Spec.Versions = append(o.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated,
			DeprecationWarning: v.DeprecationWarning, Subresources: v.Subresources,
		})
	}
	return o
}

// outline is the part of a v1 CRD document that Outline keeps.
type outline struct {
	Metadata struct {
		Name              string            `json:"name"`
		Labels            map[string]string `json:"labels"`
		Annotations       map[string]string `json:"annotations"`
		CreationTimestamp metav1.Time       `json:"creationTimestamp"`
	} `json:"metadata"`
	Spec struct {
		Group      string                                        `json:"group"`
		Names      apiextensionsv1.CustomResourceDefinitionNames `json:"names"`
		Scope      apiextensionsv1.ResourceScope                 `json:"scope"`
		Conversion *apiextensionsv1.CustomResourceConversion     `json:"conversion"`
		Versions   []struct {
			Name               string                                      `json:"name"`
			Served             bool                                        `json:"served"`
			Storage            bool                                        `json:"storage"`
			Deprecated         bool                                        `json:"deprecated"`
			DeprecationWarning *string                                     `json:"deprecationWarning"`
			Subresources       *apiextensionsv1.CustomResourceSubresources `json:"subresources"`
		} `json:"versions"`
	} `json:"spec"`
	Status apiextensionsv1.CustomResourceDefinitionStatus `json:"status"`
}

func (o *outline) crd() *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	crd.Name, crd.Labels, crd.CreationTimestamp = o.Metadata.Name, o.Metadata.Labels, o.Metadata.CreationTimestamp
	crd.Annotations = releaseAnnotations(o.Metadata.Annotations)
	crd.Spec.Group, crd.Spec.Names, crd.Spec.Scope, crd.Spec.Conversion = o.Spec.Group, o.Spec.Names, o.Spec.Scope, o.Spec.Conversion
	crd.Status = o.Status
	for _, v := range o.Spec.Versions {
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated,
			DeprecationWarning: v.DeprecationWarning, Subresources: v.Subresources,
		})
	}
	return crd
}

// servable refuses a CRD whose versions the server could not serve (it
// refuses to create it): none, or not exactly one storage version.
func servable(crd *apiextensionsv1.CustomResourceDefinition, d *manifest.Document) error {
	storage := 0
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			storage++
		}
	}
	if storage == 1 {
		return nil
	}
	line, column := d.Position("spec.versions")
	return &manifest.Error{File: d.File, Line: line, Column: column, Msg: fmt.Sprintf(
		"invalid CustomResourceDefinition %q: spec.versions: must have exactly one version marked as storage version (%d of %d are)",
		crd.Name, storage, len(crd.Spec.Versions))}
}
