package corpus

import (
	"bytes"
	"sort"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/openapi"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	openapiclient "k8s.io/client-go/openapi"
	"k8s.io/client-go/openapi/cached"
	explainv2 "k8s.io/kubectl/pkg/explain/v2"
)

// maxPaths bounds the fields explained per CRD.
const maxPaths = 21

// TestExplainMatchesServer runs kubectl's explain code for the first
// served version of every corpus CRD, for the root, each top-level field
// and nested fields up to 21 paths, with and without --recursive, against
// the server's /openapi/v3 and against the documents kubectl crd builds,
// and compares the text.
func TestExplainMatchesServer(t *testing.T) {
	needCorpus(t)
	dc, err := discovery.NewDiscoveryClientForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	server := cached.NewClient(dc.OpenAPIV3())
	explained := 0
	for _, project := range sortedProjects() {
		for _, crd := range projects[project] {
			ours := openapi.NewClient([]*apiextensionsv1.CustomResourceDefinition{crd})
			for _, v := range crd.Spec.Versions {
				if !v.Served {
					continue
				}
				// Only the first served version: the others differ only
				// in their schema, which the v3 test covers.
				gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural}
				for _, path := range fieldPaths(v.Schema) {
					for _, recursive := range []bool{false, true} {
						want := explainText(t, server, gvr, path, recursive)
						got := explainText(t, ours, gvr, path, recursive)
						if got != want {
							t.Errorf("%s %v recursive=%v:\n%s\nkubectl explain against the server:\n%s", gvr, path, recursive, got, want)
						}
						explained++
					}
				}
				break
			}
		}
	}
	t.Logf("%d explanations compared", explained)
}

func explainText(t *testing.T, client openapiclient.Client, gvr schema.GroupVersionResource, path []string, recursive bool) string {
	var out bytes.Buffer
	if err := explainv2.PrintModelDescription(path, &out, client, gvr, recursive, 0, "plaintext"); err != nil {
		return "error: " + err.Error()
	}
	return out.String()
}

// fieldPaths returns the root, every top-level field and, breadth first,
// nested fields up to maxPaths in all.
func fieldPaths(v *apiextensionsv1.CustomResourceValidation) [][]string {
	paths := [][]string{nil}
	if v == nil || v.OpenAPIV3Schema == nil {
		return paths
	}
	type node struct {
		path []string
		s    *apiextensionsv1.JSONSchemaProps
	}
	queue := []node{{nil, v.OpenAPIV3Schema}}
	for len(queue) > 0 && len(paths) < maxPaths {
		n := queue[0]
		queue = queue[1:]
		s := n.s
		if s.Items != nil && s.Items.Schema != nil {
			s = s.Items.Schema
		}
		names := make([]string, 0, len(s.Properties))
		for name := range s.Properties {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			child := s.Properties[name]
			p := append(append([]string(nil), n.path...), name)
			if len(n.path) == 0 || len(paths) < maxPaths {
				paths = append(paths, p)
			}
			queue = append(queue, node{p, &child})
		}
	}
	return paths
}

func sortedProjects() []string {
	names := make([]string, 0, len(projects))
	for p := range projects {
		names = append(names, p)
	}
	sort.Strings(names)
	return names
}
