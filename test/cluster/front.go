package cluster

import (
	"crypto/subtle"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// front is a TLS server on loopback in front of the apiserver. It checks
// the kubeconfig's bearer token, records requests, lets a test's hook
// answer instead, and proxies the rest with the apiserver's admin
// credentials.
type front struct {
	token string
	proxy *httputil.ReverseProxy

	mu       sync.Mutex
	requests []Request
	// all counts every request by user agent and method; ResetRequests
	// leaves it alone.
	all  map[string]map[string]int
	hook func(w http.ResponseWriter, r *http.Request) bool
}

// Request is one request the front has seen.
type Request struct {
	Method, Path, Query, Accept, UserAgent string
}

func newFront(backend *rest.Config, token string) (*front, error) {
	target, err := url.Parse(backend.Host)
	if err != nil {
		return nil, err
	}
	transport, err := rest.TransportFor(backend)
	if err != nil {
		return nil, err
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = transport
	proxy.FlushInterval = -1 // stream watches
	return &front{token: token, proxy: proxy}, nil
}

func (f *front) serve(l net.Listener) *http.Server {
	// Handshakes that fail on purpose (tests of TLS errors) are not news.
	srv := &http.Server{Handler: f, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = srv.Serve(l) }()
	return srv
}

func (f *front) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Accept: r.Header.Get("Accept"), UserAgent: r.UserAgent()})
	agent, _, _ := strings.Cut(r.UserAgent(), "/")
	if f.all == nil {
		f.all = map[string]map[string]int{}
	}
	if f.all[agent] == nil {
		f.all[agent] = map[string]int{}
	}
	f.all[agent][r.Method]++
	hook := f.hook
	f.mu.Unlock()

	if !f.authorized(r) {
		writeStatus(w, http.StatusUnauthorized, metav1.StatusReasonUnauthorized, "Unauthorized")
		return
	}
	if hook != nil && hook(w, r) {
		return
	}
	r.Header.Del("Authorization")
	f.proxy.ServeHTTP(w, r)
}

func (f *front) authorized(r *http.Request) bool {
	want := "Bearer " + f.token
	got := r.Header.Get("Authorization")
	return subtle.ConstantTimeCompare([]byte(got), []byte(want)) == 1
}

func writeStatus(w http.ResponseWriter, code int, reason metav1.StatusReason, msg string) {
	writeJSON(w, code, &metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure, Reason: reason, Message: msg, Code: int32(code),
	})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}
