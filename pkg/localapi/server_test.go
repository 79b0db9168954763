package localapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func testServer(t *testing.T) *Server {
	t.Helper()
	files, err := catalog.ReadFiles([]string{"../../test/testdata/crds/samples.printing.yaml"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	crds, err := files.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	docs, err := manifest.ReadFile("../../test/testdata/objects/samples.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var objs []*unstructured.Unstructured
	for i := range docs {
		obj, err := docs[i].TakeObject()
		if err != nil {
			t.Fatal(err)
		}
		objs = append(objs, &unstructured.Unstructured{Object: obj})
	}
	s, err := NewServer(catalog.Definitions(crds), objs)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// get asks the server and returns the status code and the names listed
// (or the message of a Status).
func get(t *testing.T, s *Server, path string, query url.Values) (int, string) {
	t.Helper()
	req, err := http.NewRequest("GET", "https://local"+path+"?"+query.Encode(), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := s.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	var body struct {
		Message string
		Items   []struct {
			Metadata struct{ Name, Namespace string }
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, body.Message
	}
	var names []string
	for _, it := range body.Items {
		names = append(names, it.Metadata.Namespace+"/"+it.Metadata.Name)
	}
	sort.Strings(names)
	return resp.StatusCode, strings.Join(names, " ")
}

// TestSelectors: label and field selectors filter as the server filters
// custom resources (metadata.name, metadata.namespace, selectable
// fields), and other field labels are refused with the server's message.
func TestSelectors(t *testing.T) {
	s := testServer(t)
	all := "/apis/printing.example.com/v1/samples"
	for _, tt := range []struct {
		path, field, label string
		code               int
		want               string
	}{
		{path: all, code: 200, want: "default/alpha default/beta other/delta other/gamma"},
		{path: "/apis/printing.example.com/v1/namespaces/other/samples", code: 200, want: "other/delta other/gamma"},
		{path: all, field: "spec.color=blue", code: 200, want: "default/beta"},
		{path: all, field: "metadata.name!=alpha,metadata.name!=delta", code: 200, want: "default/beta other/gamma"},
		{path: all, field: "metadata.namespace=default", code: 200, want: "default/alpha default/beta"},
		{path: all, label: "tier=front", code: 200, want: "default/alpha other/gamma"},
		{path: all, field: "spec.count=3", code: 400, want: "field label not supported: spec.count"},
		{path: "/apis/printing.example.com/v1/clusterthings", code: 404, want: "the server could not find the requested resource"},
	} {
		q := url.Values{}
		if tt.field != "" {
			q.Set("fieldSelector", tt.field)
		}
		if tt.label != "" {
			q.Set("labelSelector", tt.label)
		}
		code, got := get(t, s, tt.path, q)
		if code != tt.code || got != tt.want {
			t.Errorf("%s %v: %d %q, want %d %q", tt.path, q, code, got, tt.code, tt.want)
		}
	}
}

// TestOtherVersionsAreConverted: an object asked for at another version of
// its CRD is converted as the server converts it: None prunes the fields
// the other version's schema lacks; a webhook that cannot be reached
// fails the read with the converter's message, as on a server.
func TestOtherVersionsAreConverted(t *testing.T) {
	files, err := catalog.ReadFiles([]string{"../../examples/graduation/widgets-v1.yaml"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	crds, err := files.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	crd := catalog.Definitions(crds)[0].DeepCopy()
	// v1 (the storage version) calls spec.size spec.count.
	crd.Spec.Versions[1].Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{"count": {Type: "integer"}}}
	obj := func() *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "graduation.example.com/v1alpha1", "kind": "Widget",
			"metadata": map[string]any{"name": "w", "namespace": "default"}, "spec": map[string]any{"size": int64(3), "colour": "red"}}}
	}
	s, err := NewServer([]*apiextensionsv1.CustomResourceDefinition{crd}, []*unstructured.Unstructured{obj()})
	if err != nil {
		t.Fatal(err)
	}
	read := func(s *Server, version string) (int, map[string]any) {
		req, _ := http.NewRequest("GET", "https://local/apis/graduation.example.com/"+version+"/namespaces/default/widgets/w", nil)
		resp, err := s.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, body
	}
	if code, body := read(s, "v1alpha1"); code != 200 || body["spec"].(map[string]any)["size"] != float64(3) {
		t.Errorf("at its own version: %d %v", code, body)
	}
	// As created: generation 1, as the server's strategy sets it.
	if _, body := read(s, "v1alpha1"); body["metadata"].(map[string]any)["generation"] != float64(1) {
		t.Errorf("generation: %v", body["metadata"])
	}
	// colour is in neither schema (pruned on create), size is not in v1's.
	if code, body := read(s, "v1"); code != 200 || body["apiVersion"] != "graduation.example.com/v1" || len(body["spec"].(map[string]any)) != 0 {
		t.Errorf("at v1: %d %v", code, body)
	}

	url := "https://127.0.0.1:1/convert"
	hooked := crd.DeepCopy()
	hooked.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
		Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"}, ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url}}}
	s, err = NewServer([]*apiextensionsv1.CustomResourceDefinition{hooked}, []*unstructured.Unstructured{obj()})
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := read(s, "v1alpha1"); code != 200 {
		t.Errorf("at its own version, with a webhook: %d", code)
	}
	if code, body := read(s, "v1"); code != http.StatusInternalServerError ||
		!strings.Contains(body["message"].(string), "conversion webhook for graduation.example.com/v1alpha1, Kind=Widget failed") {
		t.Errorf("through a webhook that cannot be reached: %d %v", code, body)
	}
}
