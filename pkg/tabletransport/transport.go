// Package tabletransport answers, on the client, the Table requests that
// kubectl's get makes for custom resources: an http.RoundTripper under
// kubectl's clients asks the server for the objects as plain JSON and
// turns them into the Table the server would have sent, with the CRD's
// printer columns (pkg/printers). Requests for other types, and Tables of
// types whose CRD cannot be read, go to the server unchanged.
package tabletransport

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/klog/v2"

	"github.com/kubectl-crd/kubectl-crd/pkg/printers"
)

// LookupFunc finds the CRD that defines a group resource. It returns nil
// and no error when no CRD defines it (a built-in type), and an error the
// caller wants to see otherwise.
type LookupFunc func(ctx context.Context, gr schema.GroupResource) (*apiextensionsv1.CustomResourceDefinition, error)

// Tables holds the Table convertors of the custom resources seen so far,
// one per resource and version, each made once.
type Tables struct {
	lookup LookupFunc

	mu         sync.Mutex
	convertors map[schema.GroupVersionResource]*printers.Convertor // nil: the server prints
}

// NewTables makes a Tables that finds CRDs with lookup.
func NewTables(lookup LookupFunc) *Tables {
	return &Tables{lookup: lookup, convertors: map[schema.GroupVersionResource]*printers.Convertor{}}
}

// Transport answers requests for Tables of custom resources on the client:
// it asks the next round tripper for the objects as plain JSON and converts
// them with the CRD's printer columns, as the server would. Other requests,
// and Tables of types no readable CRD defines, pass through to the server.
type Transport struct {
	Next   http.RoundTripper
	Tables *Tables
	// Prefix is the path of the server's URL, before /apis (a proxy's
	// path; usually "").
	Prefix string
}

// WrappedRoundTripper lets client-go reach the transport under this one
// (to cancel a request that timed out, for one).
func (t *Transport) WrappedRoundTripper() http.RoundTripper { return t.Next }

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet || !wantsTable(req.Header.Get("Accept")) {
		return t.Next.RoundTrip(req)
	}
	info, ok := RequestInfo(req, t.Prefix)
	if !ok || info.APIPrefix != "apis" || info.Subresource != "" {
		return t.Next.RoundTrip(req)
	}
	gvr := schema.GroupVersionResource{Group: info.APIGroup, Version: info.APIVersion, Resource: info.Resource}
	conv, err := t.Tables.convertor(req.Context(), gvr)
	if err != nil {
		return nil, err
	}
	if conv == nil {
		return t.Next.RoundTrip(req)
	}
	return t.table(req, conv)
}

// table answers one Table request with the converted plain one. Each page
// of a paged list is a request of its own, with its own context (and
// deadline, with --request-timeout).
func (t *Transport) table(req *http.Request, conv *printers.Convertor) (*http.Response, error) {
	plain := req.Clone(req.Context())
	plain.Header.Set("Accept", "application/json")
	resp, err := t.Next.RoundTrip(plain)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	opts := &metav1.TableOptions{IncludeObject: metav1.IncludeObjectPolicy(req.URL.Query().Get("includeObject"))}
	if w := req.URL.Query().Get("watch"); w == "true" || w == "1" {
		return watchTables(req.Context(), resp, conv, opts), nil
	}
	return listTable(req.Context(), resp, conv, opts)
}

func wantsTable(accept string) bool {
	return strings.Contains(accept, "as=Table")
}

// RequestInfo reads a request to an API server as the server reads it
// (verb, group, version, namespace, resource, name, subresource), after
// the server URL's path prefix; false when it is not a request for a
// resource.
func RequestInfo(req *http.Request, prefix string) (*genericapirequest.RequestInfo, bool) {
	path, ok := strings.CutPrefix(req.URL.Path, prefix)
	if !ok {
		return nil, false
	}
	u := *req.URL
	u.Path = path
	factory := &genericapirequest.RequestInfoFactory{APIPrefixes: sets.NewString("api", "apis"), GrouplessAPIPrefixes: sets.NewString("api")}
	info, err := factory.NewRequestInfo(&http.Request{Method: req.Method, URL: &u})
	if err != nil || !info.IsResourceRequest {
		return nil, false
	}
	return info, true
}

func (t *Tables) convertor(ctx context.Context, gvr schema.GroupVersionResource) (*printers.Convertor, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.convertors[gvr]; ok {
		return c, nil
	}
	crd, err := t.lookup(ctx, gvr.GroupResource())
	if err != nil {
		return nil, err
	}
	var c *printers.Convertor
	if crd != nil {
		if c, err = printers.NewConvertor(crd, gvr.Version); err != nil {
			klog.V(2).InfoS("Cannot print columns on the client; asking the server for the table", "resource", gvr, "err", err)
			c = nil
		}
	}
	t.convertors[gvr] = c
	return c, nil
}

// listTable converts a response holding one object or a list.
func listTable(ctx context.Context, resp *http.Response, conv *printers.Convertor, opts *metav1.TableOptions) (*http.Response, error) {
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	out, isList, err := convertList(ctx, data, conv, opts)
	if !isList {
		if !json.Valid(data) {
			// Not JSON: the caller's decoder says what is wrong with it, as
			// it would with the server's Table.
			return withBody(resp, data), nil
		}
		out, err = convertObject(ctx, data, conv, opts)
	}
	if err != nil {
		return nil, err
	}
	return withBody(resp, out), nil
}

func convertObject(ctx context.Context, data []byte, conv *printers.Convertor, opts *metav1.TableOptions) ([]byte, error) {
	obj, err := decodeObject(data)
	if err != nil {
		return nil, err
	}
	table, err := conv.Table(ctx, obj, opts)
	if err != nil {
		return nil, err
	}
	return encodeTable(table)
}

func decodeObject(data []byte) (runtime.Object, error) {
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(data, nil, nil)
	return obj, err
}

// encodeTable writes a Table as JSON with each row's object embedded.
func encodeTable(table *metav1.Table) ([]byte, error) {
	if err := embedObjects(table.Rows); err != nil {
		return nil, err
	}
	return json.Marshal(table)
}

// encodeRows writes rows as a JSON array with each row's object embedded.
func encodeRows(rows []metav1.TableRow) ([]byte, error) {
	if err := embedObjects(rows); err != nil {
		return nil, err
	}
	if rows == nil {
		rows = []metav1.TableRow{}
	}
	return json.Marshal(rows)
}

// embedObjects encodes each row's object into the row, where a Table's
// JSON carries it.
func embedObjects(rows []metav1.TableRow) error {
	for i := range rows {
		row := &rows[i]
		if row.Object.Object == nil {
			continue
		}
		raw, err := json.Marshal(row.Object.Object)
		if err != nil {
			return err
		}
		row.Object.Raw = raw
	}
	return nil
}

func withBody(resp *http.Response, body []byte) *http.Response {
	out := *resp
	out.Header = resp.Header.Clone()
	out.Header.Set("Content-Type", "application/json")
	out.Header.Set("Content-Length", strconv.Itoa(len(body)))
	out.Header.Del("Content-Encoding")
	out.ContentLength = int64(len(body))
	out.Body = io.NopCloser(bytes.NewReader(body))
	return &out
}

type watchEvent struct {
	Type   string          `json:"type"`
	Object json.RawMessage `json:"object"`
}

// watchTables converts a stream of watch events as the server's watch
// encoder does: each object becomes a one-row Table, and only the first
// carries the column definitions.
func watchTables(ctx context.Context, resp *http.Response, conv *printers.Convertor, opts *metav1.TableOptions) *http.Response {
	pr, pw := io.Pipe()
	upstream := resp.Body
	go func() {
		defer upstream.Close()
		dec := json.NewDecoder(upstream)
		enc := json.NewEncoder(pw)
		for {
			var e watchEvent
			if err := dec.Decode(&e); err != nil {
				pw.CloseWithError(err)
				return
			}
			if e.Type != "ERROR" {
				obj, err := decodeObject(e.Object)
				if err == nil {
					var table *metav1.Table
					if table, err = conv.Table(ctx, obj, opts); err == nil {
						opts.NoHeaders = true
						e.Object, err = encodeTable(table)
					}
				}
				if err != nil {
					pw.CloseWithError(err)
					return
				}
			}
			if err := enc.Encode(&e); err != nil {
				return // the reader went away
			}
		}
	}()
	out := *resp
	out.Header = resp.Header.Clone()
	out.Header.Del("Content-Length")
	out.ContentLength = -1
	out.Body = &pipeBody{PipeReader: pr, upstream: upstream}
	return &out
}

// pipeBody closes the upstream body too, so that the converting goroutine
// ends when the reader stops reading.
type pipeBody struct {
	*io.PipeReader
	upstream io.Closer
}

func (b *pipeBody) Close() error {
	b.upstream.Close()
	return b.PipeReader.Close()
}
