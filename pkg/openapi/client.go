package openapi

import (
	"encoding/json"
	"fmt"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	openapiclient "k8s.io/client-go/openapi"
)

// NewClient returns an OpenAPI v3 client (what kubectl explain reads) that
// serves the documents of the CRDs' group versions, built on the client,
// as the server's /openapi/v3 would.
// Each document is built once, when first asked for.
func NewClient(crds []*apiextensionsv1.CustomResourceDefinition) openapiclient.Client {
	paths := map[string]openapiclient.GroupVersion{}
	for _, gv := range GroupVersions(crds) {
		paths["apis/"+gv.String()] = &groupVersion{crds: crds, gv: gv}
	}
	return &client{paths: paths}
}

type client struct {
	paths map[string]openapiclient.GroupVersion
}

func (c *client) Paths() (map[string]openapiclient.GroupVersion, error) {
	return c.paths, nil
}

type groupVersion struct {
	crds []*apiextensionsv1.CustomResourceDefinition
	gv   schema.GroupVersion

	once sync.Once
	data []byte
	err  error
}

func (g *groupVersion) Schema(contentType string) ([]byte, error) {
	if contentType != "application/json" {
		return nil, fmt.Errorf("only application/json is served, not %s", contentType)
	}
	g.once.Do(func() {
		var doc any
		if doc, g.err = V3(g.crds, g.gv); g.err == nil {
			g.data, g.err = json.Marshal(doc)
		}
	})
	return g.data, g.err
}

func (g *groupVersion) ServerRelativeURL() string { return "/openapi/v3/apis/" + g.gv.String() }

// Union serves the paths of every client, the first client's where two
// serve one (kube-apiserver's kinds, then the CRDs': /openapi/v3 has
// both).
func Union(clients ...openapiclient.Client) openapiclient.Client {
	return union(clients)
}

type union []openapiclient.Client

func (u union) Paths() (map[string]openapiclient.GroupVersion, error) {
	out := map[string]openapiclient.GroupVersion{}
	for i := len(u) - 1; i >= 0; i-- {
		paths, err := u[i].Paths()
		if err != nil {
			return nil, err
		}
		for p, gv := range paths {
			out[p] = gv
		}
	}
	return out, nil
}
