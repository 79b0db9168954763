package openapi

import (
	"path"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestLayoutPaths(t *testing.T) {
	crd := func(group, kind string, versions ...string) *apiextensionsv1.CustomResourceDefinition {
		c := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind}}}
		for i, v := range versions {
			c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: i > 0})
		}
		return c
	}
	crds := []*apiextensionsv1.CustomResourceDefinition{
		crd("stable.example.com", "CronTab", "v1alpha1", "v1beta1", "v1"),
		crd("gateway.networking.k8s.io", "Gateway", "v1alpha2", "v1"),
		crd("networking.istio.io", "Gateway", "v1alpha3", "v1"),
	}
	for _, c := range []struct {
		layout    Layout
		want      []string
		ambiguous []string
	}{
		{LayoutKubeconform, []string{
			"crontab_v1.json", "crontab_v1beta1.json",
			"gateway.networking.k8s.io/gateway_v1.json", "networking.istio.io/gateway_v1.json",
			"stable.example.com/crontab_v1.json", "stable.example.com/crontab_v1beta1.json",
		}, []string{"gateway_v1.json (gateway.networking.k8s.io, networking.istio.io)"}},
		{LayoutVSCode, []string{
			"gateway.networking.k8s.io/gateway_v1.json", "networking.istio.io/gateway_v1.json",
			"stable.example.com/crontab_v1.json", "stable.example.com/crontab_v1beta1.json",
		}, nil},
	} {
		files, ambiguous := c.layout.SchemaFiles(crds)
		var got []string
		for _, f := range files {
			if want := strings.ToLower(f.CRD.Spec.Names.Kind) + "_" + f.Version + ".json"; path.Base(f.Path) != want {
				t.Errorf("%s: %s holds %s %s", c.layout, f.Path, f.CRD.Spec.Names.Kind, f.Version)
			}
			got = append(got, f.Path)
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) || !slices.Equal(ambiguous, c.ambiguous) || !c.layout.JSONSchemas() {
			t.Errorf("%s: %q, left out %q; want %q, left out %q", c.layout, got, ambiguous, c.want, c.ambiguous)
		}
	}
	if LayoutKubectlValidate.JSONSchemas() {
		t.Error("kubectl-validate reads OpenAPI documents, not JSON Schemas")
	}
	for gv, want := range map[schema.GroupVersion]string{
		{Group: "stable.example.com", Version: "v1"}: "apis/stable.example.com/v1.json",
		{Version: "v1"}: "api/v1.json",
	} {
		if got := DocumentPath(gv, "json"); got != want {
			t.Errorf("%s: %s, want %s", gv, got, want)
		}
	}
}
