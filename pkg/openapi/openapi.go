// Package openapi builds, on the client, the OpenAPI documents an API
// server publishes for CRDs, with the server's own builder: v3 per group
// version (/openapi/v3/apis/GROUP/VERSION) and the v2 document's paths and
// definitions (/openapi/v2).
package openapi

import (
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	apiextensionsfeatures "k8s.io/apiextensions-apiserver/pkg/features"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/kube-openapi/pkg/handler"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

// GroupVersions returns every group version the CRDs serve, sorted.
func GroupVersions(crds []*apiextensionsv1.CustomResourceDefinition) []schema.GroupVersion {
	seen := map[schema.GroupVersion]bool{}
	var out []schema.GroupVersion
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			gv := schema.GroupVersion{Group: crd.Spec.Group, Version: v.Name}
			if v.Served && !seen[gv] {
				seen[gv] = true
				out = append(out, gv)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Group != out[j].Group {
			return out[i].Group < out[j].Group
		}
		return out[i].Version < out[j].Version
	})
	return out
}

func options(v2 bool) builder.Options {
	return builder.Options{
		V2:                      v2,
		IncludeSelectableFields: utilfeature.DefaultFeatureGate.Enabled(apiextensionsfeatures.CustomResourceFieldSelectors),
	}
}

// V3 builds the document the server serves at /openapi/v3/apis/GROUP/VERSION
// for the CRDs that serve gv; nil when none does.
func V3(crds []*apiextensionsv1.CustomResourceDefinition, gv schema.GroupVersion) (*spec3.OpenAPI, error) {
	var specs []*spec3.OpenAPI
	for _, crd := range crds {
		if crd.Spec.Group != gv.Group || !apihelpers.HasServedCRDVersion(crd, gv.Version) {
			continue
		}
		s, err := builder.BuildOpenAPIV3(crd, gv.Version, options(false))
		if err != nil {
			return nil, err
		}
		specs = append(specs, s)
	}
	if len(specs) == 0 {
		return nil, nil
	}
	return builder.MergeSpecsV3(specs...)
}

// V2 builds the paths and definitions the server's /openapi/v2 holds for
// every served version of the CRDs.
func V2(crds []*apiextensionsv1.CustomResourceDefinition) (*spec.Swagger, error) {
	merged := &spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger: "2.0",
		Info:    &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes CustomResourceDefinitions", Version: "v1"}},
		Paths:   &spec.Paths{Paths: map[string]spec.PathItem{}},
	}}
	perCRD := make([]*spec.Swagger, 0, len(crds))
	for _, crd := range crds {
		crdSpec := &spec.Swagger{}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			s, err := builder.BuildOpenAPIV2(crd, v.Name, options(true))
			if err != nil {
				return nil, err
			}
			// As the server does, so that CRDs merge with specs whose
			// defaults are pruned.
			s.Definitions = handler.PruneDefaults(s.Definitions)
			if crdSpec, err = builder.MergeSpecs(crdSpec, s); err != nil {
				return nil, err
			}
		}
		perCRD = append(perCRD, crdSpec)
	}
	return builder.MergeSpecs(merged, perCRD...)
}
