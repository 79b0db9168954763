package builtin

import (
	"encoding/json"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/endpoints/openapi"
	openapiclient "k8s.io/client-go/openapi"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/util"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"
)

// OpenAPI serves the OpenAPI v3 documents of kube-apiserver's own kinds,
// as its /openapi/v3 does, from the definitions the server is built with:
// what admission reads of a kind (a mutating policy's type converter, a
// policy's type checking). Every group version's document holds every
// definition; it is built once, when first asked for.
func OpenAPI() openapiclient.Client {
	return builtinOpenAPI{}
}

type builtinOpenAPI struct{}

func (builtinOpenAPI) Paths() (map[string]openapiclient.GroupVersion, error) {
	doc, err := kubeDocument()
	if err != nil {
		return nil, err
	}
	paths := map[string]openapiclient.GroupVersion{}
	for gv := range doc.groupVersions {
		path := "apis/" + gv.String()
		if gv.Group == "" {
			path = "api/" + gv.Version
		}
		paths[path] = groupVersionDocument{path: path, data: doc.data}
	}
	return paths, nil
}

type groupVersionDocument struct {
	path string
	data []byte
}

func (g groupVersionDocument) Schema(contentType string) ([]byte, error) {
	if contentType != runtime.ContentTypeJSON {
		return nil, fmt.Errorf("only %s is served, not %s", runtime.ContentTypeJSON, contentType)
	}
	return g.data, nil
}

func (g groupVersionDocument) ServerRelativeURL() string { return "/openapi/v3/" + g.path }

type document struct {
	data          []byte
	groupVersions map[schema.GroupVersion]bool
}

// kubeDocument is the document of every definition, named and tagged
// with its kinds as kube-apiserver's OpenAPI builder names them.
var kubeDocument = sync.OnceValues(func() (*document, error) {
	namer := openapi.NewDefinitionNamer(legacyscheme.Scheme)
	ref := func(path string) spec.Ref {
		return spec.MustCreateRef("#/components/schemas/" + util.ToRESTFriendlyName(path))
	}
	defs := generatedopenapi.GetOpenAPIDefinitions(common.ReferenceCallback(ref))
	schemas := make(map[string]*spec.Schema, len(defs))
	gvs := map[schema.GroupVersion]bool{}
	for name, def := range defs {
		s := def.Schema
		_, ext := namer.GetDefinitionName(name)
		for k, v := range ext {
			s.AddExtension(k, v)
		}
		var kinds []schema.GroupVersionKind
		if err := s.Extensions.GetObject("x-kubernetes-group-version-kind", &kinds); err == nil {
			for _, k := range kinds {
				gvs[k.GroupVersion()] = true
			}
		}
		schemas[util.ToRESTFriendlyName(name)] = &s
	}
	data, err := json.Marshal(&spec3.OpenAPI{Version: "3.0.0", Components: &spec3.Components{Schemas: schemas}})
	if err != nil {
		return nil, err
	}
	return &document{data: data, groupVersions: gvs}, nil
})
