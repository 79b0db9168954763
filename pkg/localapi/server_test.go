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
