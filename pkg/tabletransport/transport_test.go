package tabletransport

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var testCRD = &apiextensionsv1.CustomResourceDefinition{
	ObjectMeta: metav1.ObjectMeta{Name: "things.example.com"},
	Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com",
		Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Kind: "Thing", ListKind: "ThingList"},
		Scope: apiextensionsv1.NamespaceScoped,
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
			Name: "v1", Served: true, Storage: true,
			AdditionalPrinterColumns: []apiextensionsv1.CustomResourceColumnDefinition{
				{Name: "Size", Type: "integer", JSONPath: ".spec.size"},
			},
		}},
	},
}

// pagedServer serves three pages of one thing each, and records requests.
type pagedServer struct {
	mu       sync.Mutex
	requests []string
}

func (s *pagedServer) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	s.requests = append(s.requests, req.Header.Get("Accept")+" "+req.URL.RawQuery)
	s.mu.Unlock()
	page := 0
	fmt.Sscanf(req.URL.Query().Get("continue"), "page-%d", &page)
	cont := ""
	if page < 2 {
		cont = fmt.Sprintf("page-%d", page+1)
	}
	body := fmt.Sprintf(`{"apiVersion":"example.com/v1","kind":"ThingList","metadata":{"resourceVersion":"7","continue":%q},
		"items":[{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"t%d","namespace":"ns"},"spec":{"size":%d}}]}`, cont, page, page*10)
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
}

func tableRequest(t *testing.T, query string) *http.Request {
	req, err := http.NewRequest("GET", "https://server/apis/example.com/v1/namespaces/ns/things?"+query, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json")
	return req
}

func lookupTestCRD(context.Context, schema.GroupResource) (*apiextensionsv1.CustomResourceDefinition, error) {
	return testCRD, nil
}

// TestTransportPagesInOrder lists three pages through the transport: every
// page is asked for once, converted, in order.
func TestTransportPagesInOrder(t *testing.T) {
	server := &pagedServer{}
	tr := &Transport{Next: server, Tables: NewTables(lookupTestCRD)}
	query := "limit=1"
	for page := 0; page < 3; page++ {
		resp, err := tr.RoundTrip(tableRequest(t, query))
		if err != nil {
			t.Fatal(err)
		}
		var table metav1.Table
		if err := json.NewDecoder(resp.Body).Decode(&table); err != nil {
			t.Fatal(err)
		}
		if table.Kind != "Table" || len(table.Rows) != 1 || len(table.ColumnDefinitions) != 2 {
			t.Fatalf("page %d: %+v", page, table)
		}
		if name, size := table.Rows[0].Cells[0], table.Rows[0].Cells[1]; name != fmt.Sprintf("t%d", page) || size != float64(page*10) {
			t.Errorf("page %d: row %v", page, table.Rows[0].Cells)
		}
		var partial metav1.PartialObjectMetadata
		if err := json.Unmarshal(table.Rows[0].Object.Raw, &partial); err != nil || partial.Kind != "PartialObjectMetadata" || partial.Name != fmt.Sprintf("t%d", page) {
			t.Errorf("page %d: row object %s", page, table.Rows[0].Object.Raw)
		}
		if table.Continue == "" {
			break
		}
		query = "continue=" + table.Continue + "&limit=1"
	}
	if len(server.requests) != 3 {
		t.Errorf("%d requests, want 3: %q", len(server.requests), server.requests)
	}
	for _, r := range server.requests {
		if strings.Contains(r, "as=Table") {
			t.Errorf("asked the server for a Table: %s", r)
		}
	}
}

// TestTransportPassesThrough leaves alone what is not a Table of a CRD's
// resource: plain JSON, built-in types and subresources.
func TestTransportPassesThrough(t *testing.T) {
	server := &pagedServer{}
	tr := &Transport{Next: server, Tables: NewTables(func(context.Context, schema.GroupResource) (*apiextensionsv1.CustomResourceDefinition, error) {
		return nil, nil
	})}
	req := tableRequest(t, "")
	if _, err := tr.RoundTrip(req); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(server.requests[0], "as=Table") {
		t.Errorf("a type without CRD was not passed to the server as asked: %s", server.requests[0])
	}
}

// TestRequestInfo reads paths behind a proxy's prefix as the server reads
// them.
func TestRequestInfo(t *testing.T) {
	for path, want := range map[string]string{
		"/k8s/clusters/c1/apis/example.com/v1/namespaces/ns/things/t1/status": "get apis example.com v1 ns things t1 status",
		"/k8s/clusters/c1/apis/example.com/v1/things?watch=true":              "watch apis example.com v1  things  ",
		"/k8s/clusters/c1/api/v1/namespaces/apis/pods":                        "list api  v1 apis pods  ",
		"/elsewhere/apis/example.com/v1/things":                               "-",
		"/k8s/clusters/c1/apis/example.com/v1":                                "-",
	} {
		req, err := http.NewRequest("GET", "https://proxy"+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := "-"
		if info, ok := RequestInfo(req, "/k8s/clusters/c1"); ok {
			got = strings.Join([]string{info.Verb, info.APIPrefix, info.APIGroup, info.APIVersion, info.Namespace, info.Resource, info.Name, info.Subresource}, " ")
		}
		if got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
}

// TestTransportWatch converts a watch stream: one-row Tables, column
// definitions in the first event only, errors passed through.
func TestTransportWatch(t *testing.T) {
	events := `{"type":"ADDED","object":{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a"},"spec":{"size":1}}}
{"type":"MODIFIED","object":{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"a"},"spec":{"size":2}}}
{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"gone","code":410}}
`
	next := roundTripFunc(func(req *http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: 200, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(events)), Request: req}, nil
	})
	tr := &Transport{Next: next, Tables: NewTables(lookupTestCRD)}
	resp, err := tr.RoundTrip(tableRequest(t, "watch=true"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for i, want := range []struct {
		typ     string
		cols    int
		size    float64
		isTable bool
	}{{"ADDED", 2, 1, true}, {"MODIFIED", 0, 2, true}, {"ERROR", 0, 0, false}} {
		var e struct {
			Type   string
			Object metav1.Table
		}
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if e.Type != want.typ || len(e.Object.ColumnDefinitions) != want.cols {
			t.Errorf("event %d: %s with %d columns", i, e.Type, len(e.Object.ColumnDefinitions))
		}
		if want.isTable && (e.Object.Kind != "Table" || e.Object.Rows[0].Cells[1] != want.size) {
			t.Errorf("event %d: %+v", i, e.Object)
		}
	}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
