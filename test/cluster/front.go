package cluster

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"sort"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
)

// front is a plain-HTTP server on loopback in front of the apiserver. It
// checks the kubeconfig's bearer token, serves the legacy /api root (the
// standalone apiextensions-apiserver has no core group; inside
// kube-apiserver that document exists), records requests, and proxies
// everything else with the apiserver's own loopback credentials.
type front struct {
	token   string
	proxy   *httputil.ReverseProxy
	backend clientset.Interface

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
	client, err := clientset.NewForConfig(backend)
	if err != nil {
		return nil, err
	}
	return &front{token: token, proxy: proxy, backend: client}, nil
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
	switch r.URL.Path {
	case "/api":
		writeJSON(w, http.StatusOK, &metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{}})
		return
	case "/apis":
		groups, err := f.groups(r.Context())
		if err != nil {
			writeStatus(w, http.StatusInternalServerError, metav1.StatusReasonInternalError, err.Error())
			return
		}
		writeJSON(w, http.StatusOK, groups)
		return
	case "/apis/" + appsGroup.Name:
		writeJSON(w, http.StatusOK, &appsGroup)
		return
	case "/apis/" + appsResources.GroupVersion:
		writeJSON(w, http.StatusOK, &appsResources)
		return
	}
	r.Header.Del("Authorization")
	f.proxy.ServeHTTP(w, r)
}

// groups builds the /apis document as kube-apiserver's aggregator would:
// every group the backend serves (apiextensions.k8s.io and the groups of
// the CRDs), each as the backend describes it at /apis/<group>, ordered by
// name (CRD groups all have the same priority).
func (f *front) groups(ctx context.Context) (*metav1.APIGroupList, error) {
	crds, err := f.backend.ApiextensionsV1().CustomResourceDefinitions().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	names := map[string]bool{apiextensionsv1.GroupName: true}
	for _, crd := range crds.Items {
		names[crd.Spec.Group] = true
	}
	list := &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}}
	for name := range names {
		group := metav1.APIGroup{}
		err := f.backend.Discovery().RESTClient().Get().AbsPath("/apis", name).Do(ctx).Into(&group)
		if apierrors.IsNotFound(err) {
			continue // no served, established version yet
		}
		if err != nil {
			return nil, err
		}
		group.TypeMeta = metav1.TypeMeta{}
		list.Groups = append(list.Groups, group)
	}
	list.Groups = append(list.Groups, appsGroup)
	sort.Slice(list.Groups, func(i, j int) bool { return list.Groups[i].Name < list.Groups[j].Name })
	return list, nil
}

// appsGroup and appsResources are the discovery of one built-in group
// (apps/v1, deployments), which the standalone apiextensions-apiserver
// does not serve: enough for clients to meet a built-in kind outside the
// core group, as on a real cluster. Only discovery is served; requests
// for deployments find nothing.
var (
	appsGroup = metav1.APIGroup{Name: "apps",
		Versions:         []metav1.GroupVersionForDiscovery{{GroupVersion: "apps/v1", Version: "v1"}},
		PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"}}
	appsResources = metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: "apps/v1",
		APIResources: []metav1.APIResource{{Name: "deployments", SingularName: "deployment", Namespaced: true, Kind: "Deployment",
			Verbs: metav1.Verbs{"create", "delete", "get", "list", "patch", "update", "watch"}}}}
)

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
