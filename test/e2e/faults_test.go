package e2e

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
)

// samplesList is the path of the list kubectl get samples sends.
const samplesList = "/apis/printing.example.com/v1/namespaces/default/samples"

// fault answers requests for path (every one, or the first n when n > 0)
// with answer, and lets the others through.
func fault(path string, n int64, answer func(w http.ResponseWriter, r *http.Request)) func(w http.ResponseWriter, r *http.Request) bool {
	var seen atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != path || n > 0 && seen.Add(1) > n {
			return false
		}
		answer(w, r)
		return true
	}
}

func status(code int, retryAfter string, body string) func(w http.ResponseWriter, r *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		if retryAfter != "" {
			w.Header().Set("Retry-After", retryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		fmt.Fprint(w, body)
	}
}

func statusBody(code int, reason, msg string) string {
	return fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":%q,"code":%d,"message":%q}`, reason, code, msg)
}

// TestClusterFaults puts a fault-injecting front before the test server and
// runs kubectl crd get and kubectl get (built from k8s.io/kubectl) against
// it: for each fault both must say the same, exit the same, and finish
// within the bound. Faults on the CRD read, which kubectl never makes,
// are checked against kubectl crd's own expectation.
func TestClusterFaults(t *testing.T) {
	otherCA := writeOtherCA(t)
	tests := []struct {
		name    string
		hook    func(w http.ResponseWriter, r *http.Request) bool
		args    []string // added to get samples
		maxTime time.Duration
		minTime time.Duration // retries wait as the server asked
	}{{
		name: "unreachable server",
		args: []string{"--server", "https://127.0.0.1:1"},
	}, {
		name: "TLS: a certificate from another authority",
		args: []string{"--certificate-authority", otherCA},
	}, {
		name: "401: a token the server does not take",
		args: []string{"--token", "not-the-token"},
	}, {
		name:    "429 twice with Retry-After: retried, then served",
		hook:    fault(samplesList, 2, status(429, "1", statusBody(429, "TooManyRequests", "slow down"))),
		minTime: 2 * time.Second,
	}, {
		name:    "503 with Retry-After: retried, then served",
		hook:    fault(samplesList, 1, status(503, "1", statusBody(503, "ServiceUnavailable", "not now"))),
		minTime: time.Second,
	}, {
		name: "500 without Retry-After: not retried",
		hook: fault(samplesList, 0, status(500, "", statusBody(500, "InternalError", "etcd is on fire"))),
	}, {
		name: "429 for ever: gives up as client-go does",
		hook: fault(samplesList, 0, status(429, "0", statusBody(429, "TooManyRequests", "slow down"))),
	}, {
		name: "a server that stalls: --request-timeout",
		hook: fault(samplesList, 0, func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-r.Context().Done():
			case <-time.After(30 * time.Second):
			}
		}),
		args:    []string{"--request-timeout", "2s"},
		maxTime: 10 * time.Second,
	}, {
		name: "truncated JSON",
		hook: fault(samplesList, 0, status(200, "", `{"kind":"SampleList","apiVersion":"printing.example.com/v1","metadata":{"resourceVersion":"1"},"items":[{"apiVersion":"printing.example.com/v1","kind":"Sam`)),
	}, {
		name: "invalid JSON",
		hook: fault(samplesList, 0, status(200, "", `{"kind": SampleList, items: [}`)),
	}, {
		name: "a Status that is not JSON",
		hook: fault(samplesList, 0, status(502, "", `<html>Bad Gateway</html>`)),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			testCluster.SetHook(tt.hook)
			defer testCluster.SetHook(nil)
			args := append([]string{"get", "samples"}, tt.args...)
			got := bin.Run(t, "kubectl-crd", nil, args...)
			want := bin.Run(t, "kubectl", nil, args...)
			// kubectl's discovery logs each failed attempt before the
			// message (klog lines); kubectl crd says the message once.
			want.Stderr = klogLine.ReplaceAllString(want.Stderr, "")
			// A timed-out request is cancelled by its context and by the
			// client's timeout at once; which error wins, and whether the
			// transport adds what it was waiting for, varies from run to
			// run, for kubectl as for kubectl crd.
			got.Stderr, want.Stderr = sameCancel(got.Stderr), sameCancel(want.Stderr)
			harness.Compare(t, got, want)
			if strings.Contains(got.Stderr, "goroutine ") || strings.Contains(got.Stderr, "panic") {
				t.Errorf("crashed:\n%s", got.Stderr)
			}
			if max := cmp(tt.maxTime, 20*time.Second); got.Elapsed > max {
				t.Errorf("took %v, more than %v", got.Elapsed, max)
			}
			if got.Elapsed < tt.minTime {
				t.Errorf("took %v: the server asked to wait at least %v", got.Elapsed, tt.minTime)
			}
			t.Logf("exit %d in %v: %s", got.Code, got.Elapsed.Round(time.Millisecond), firstLine(got.Stderr))
		})
	}
}

// TestCRDDeletedAfterDiscovery: discovery comes from kubectl's disk cache,
// which still lists a resource whose CRD is gone; the CRD read answers 404,
// and kubectl crd refreshes discovery once and resolves again.
func TestCRDDeletedAfterDiscovery(t *testing.T) {
	ctx := context.Background()
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "ephemera.gone.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "gone.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "ephemera", Singular: "ephemeron", Kind: "Ephemeron"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}}},
		},
	}
	if err := testCluster.CreateCRDs(ctx, crd); err != nil {
		t.Fatal(err)
	}
	crdPath := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/" + crd.Name
	cache := []string{"KUBECACHEDIR=" + t.TempDir()}
	normal := bin.Run(t, "kubectl-crd", cache, "get", "ephemera") // fills the cache

	// Once: a 404 (say, a CRD read racing a re-create), then the CRD.
	testCluster.ResetRequests()
	testCluster.SetHook(fault(crdPath, 1, status(404, "", statusBody(404, "NotFound", "not found"))))
	once := bin.Run(t, "kubectl-crd", cache, "get", "ephemera")
	testCluster.SetHook(nil)
	harness.Compare(t, once, normal)
	if n, d := countRequests(crdPath), countRequests("/apis"); n != 2 || d != 1 {
		t.Errorf("after one 404: %d CRD reads and %d discovery refreshes; want 2 and 1", n, d)
	}

	// Deleted for good: the refreshed discovery no longer has the type.
	client, err := dynamic.NewForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	crds := client.Resource(apiextensionsv1.SchemeGroupVersion.WithResource("customresourcedefinitions"))
	if err := crds.Delete(ctx, crd.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := crds.Get(ctx, crd.Name, metav1.GetOptions{}); apierrors.IsNotFound(err) || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	testCluster.ResetRequests()
	r := bin.Run(t, "kubectl-crd", cache, "get", "ephemera")
	want := "error: the server doesn't have a resource type \"ephemera\"\n"
	if r.Code != 2 || r.Stderr != want {
		t.Errorf("CRD deleted: exit %d, stderr:\n%s\nwant exit 2, stderr:\n%s", r.Code, r.Stderr, want)
	}
	if d := countRequests("/apis"); d != 1 {
		t.Errorf("CRD deleted: discovery fetched %d times; want once (the cache was stale)", d)
	}
}

// TestVersionUnservedAfterDiscovery: discovery, cached, maps the type to
// a version the CRD has since stopped serving; the type is resolved again
// with fresh discovery, once.
func TestVersionUnservedAfterDiscovery(t *testing.T) {
	ctx := context.Background()
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "graduates.unserved.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "unserved.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: "graduates", Singular: "graduate", Kind: "Graduate"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1alpha1", Served: true, Storage: true, Schema: schema}},
		},
	}
	if err := testCluster.CreateCRDs(ctx, crd); err != nil {
		t.Fatal(err)
	}
	cache := []string{"KUBECACHEDIR=" + t.TempDir()}
	if r := bin.Run(t, "kubectl-crd", cache, "get", "graduates"); r.Code != 0 { // fills the cache
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	client := apiextensionsclient.NewForConfigOrDie(testCluster.Config).ApiextensionsV1().CustomResourceDefinitions()
	live, err := client.Get(ctx, crd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	live.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{
		{Name: "v1alpha1", Served: false, Storage: false, Schema: schema},
		{Name: "v1", Served: true, Storage: true, Schema: schema},
	}
	if _, err := client.Update(ctx, live, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	testCluster.ResetRequests()
	r := bin.Run(t, "kubectl-crd", cache, "get", "graduates", "-v=6")
	if r.Code != 0 || strings.Contains(r.Stderr, "does not serve") || !strings.Contains(r.Stderr, "/apis/unserved.example.com/v1/namespaces/default/graduates") {
		t.Errorf("exit %d; want the list at v1 after fresh discovery:\n%s", r.Code, r.Stderr)
	}
	if d := countRequests("/apis"); d != 1 {
		t.Errorf("discovery fetched %d times; want once (the cache was stale)", d)
	}
}

var klogLine = regexp.MustCompile(`(?m)^E\d{4} [^\n]*memcache.go[^\n]*\n`)

// timedOut is how a request that ran out of time ends: the context's
// deadline or the client's timeout, whichever fires first, with or without
// the transport's note on what it was waiting for.
var timedOut = regexp.MustCompile(`(context deadline exceeded|net/http: request canceled)( \(Client\.Timeout exceeded while awaiting headers\))?`)

func sameCancel(s string) string {
	return timedOut.ReplaceAllString(s, "(timed out)")
}

func countRequests(path string) int {
	n := 0
	for _, r := range testCluster.Requests() {
		if r.Path == path && strings.HasPrefix(r.UserAgent, "kubectl-crd") {
			n++
		}
	}
	return n
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// writeOtherCA writes a CA certificate that did not sign the test
// server's certificate.
func writeOtherCA(t *testing.T) string {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "another CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true,
		KeyUsage: x509.KeyUsageCertSign, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(p, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestGetPagesWithRequestTimeout lists more objects than one page holds
// with --request-timeout set, as scripts often do: every page is a request
// of its own with its own deadline, and kubectl crd must print every row,
// as kubectl does.
func TestGetPagesWithRequestTimeout(t *testing.T) {
	const n = 250
	err := testCluster.CreateMany(context.Background(), 0, n, func(i int) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "printing.example.com/v1", "kind": "Sample",
			"metadata": map[string]any{"name": fmt.Sprintf("paged-%03d", i), "namespace": "paging"},
			"spec":     map[string]any{"color": "red", "count": int64(i)},
		}}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, chunk := range []string{"100", "500"} {
		args := []string{"get", "samples", "-n", "paging", "-o", "wide", "--request-timeout", "5s", "--chunk-size", chunk}
		got := bin.Run(t, "kubectl-crd", nil, args...)
		want := bin.Run(t, "kubectl", nil, args...)
		harness.Compare(t, got, want)
		if rows := strings.Count(got.Stdout, "\npaged-"); rows != n {
			t.Errorf("--chunk-size %s: %d rows, want %d; stderr:\n%s", chunk, rows, n, got.Stderr)
		}
	}
}
