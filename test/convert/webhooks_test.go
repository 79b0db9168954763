package convert

import (
	"crypto/tls"
	"encoding/json"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	certutil "k8s.io/client-go/util/cert"
)

// The test webhooks convert Gizmos between v1 (spec.color, spec.size) and
// v2 (spec.colour, spec.dimensions.size, spec.shape, which v1 cannot hold:
// the lossless webhook keeps it in an annotation of the v1 object and
// restores it, the lossy one drops it). Each path of the server is one
// webhook; most answer the way one of the server's checks refuses.
const (
	serviceName      = "gizmo-webhook"
	serviceNamespace = "conv"
	shapeAnnotation  = "conv.example.com/shape"
)

// webhooks is a TLS server on loopback serving every test webhook, with a
// certificate for 127.0.0.1 and, when forService is set, the service's
// DNS name.
type webhooks struct {
	URL    string // https://127.0.0.1:PORT
	CA     []byte // the certificate's PEM (self-signed: its own CA)
	mu     sync.Mutex
	counts map[string]int // requests by path
	srv    *http.Server
}

func startWebhooks(t testing.TB, forService bool) *webhooks {
	t.Helper()
	var dns []string
	if forService {
		dns = []string{serviceName + "." + serviceNamespace + ".svc"}
	}
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, dns)
	if err != nil {
		t.Fatal(err)
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12})
	if err != nil {
		t.Fatal(err)
	}
	w := &webhooks{URL: "https://" + l.Addr().String(), CA: certPEM, counts: map[string]int{}}
	w.srv = &http.Server{Handler: w, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go func() { _ = w.srv.Serve(l) }()
	t.Cleanup(func() { w.srv.Close() })
	return w
}

// Count is how many requests a path has had.
func (w *webhooks) Count(path string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.counts[path]
}

func (w *webhooks) ServeHTTP(rw http.ResponseWriter, r *http.Request) {
	w.mu.Lock()
	w.counts[r.URL.Path]++
	w.mu.Unlock()
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	path := strings.TrimPrefix(r.URL.Path, "/")
	switch path {
	case "status500":
		http.Error(rw, "the converter crashed", http.StatusInternalServerError)
		return
	case "notreview":
		rw.Header().Set("Content-Type", "application/json")
		_, _ = rw.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","data":{"hello":"world"}}`))
		return
	case "slow":
		select {
		case <-time.After(5 * time.Second):
		case <-r.Context().Done():
			return
		}
	}
	var probe metav1.TypeMeta
	_ = json.Unmarshal(body, &probe)
	var reply any
	if probe.APIVersion == v1beta1.SchemeGroupVersion.String() {
		var review v1beta1.ConversionReview
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			http.Error(rw, "not a ConversionReview", http.StatusBadRequest)
			return
		}
		objs, result, uid := answer(path, review.Request.UID, review.Request.DesiredAPIVersion, review.Request.Objects)
		review.Response = &v1beta1.ConversionResponse{UID: uid, ConvertedObjects: objs, Result: result}
		review.Request = nil
		reply = review
	} else {
		var review apiextensionsv1.ConversionReview
		if err := json.Unmarshal(body, &review); err != nil || review.Request == nil {
			http.Error(rw, "not a ConversionReview", http.StatusBadRequest)
			return
		}
		objs, result, uid := answer(path, review.Request.UID, review.Request.DesiredAPIVersion, review.Request.Objects)
		review.Response = &apiextensionsv1.ConversionResponse{UID: uid, ConvertedObjects: objs, Result: result}
		review.Request = nil
		reply = review
	}
	rw.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(rw).Encode(reply)
}

// answer converts the objects as the webhook at path does.
func answer(path string, uid k8stypes.UID, desired string, in []runtime.RawExtension) ([]runtime.RawExtension, metav1.Status, k8stypes.UID) {
	ok := metav1.Status{Status: metav1.StatusSuccess}
	var out []runtime.RawExtension
	for _, raw := range in {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw.Raw); err != nil {
			return nil, metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}, uid
		}
		if strings.HasPrefix(obj.GetName(), "unconvertible") {
			return nil, metav1.Status{Status: metav1.StatusFailure, Message: "gizmo " + obj.GetName() + " cannot be converted"}, uid
		}
		original := obj.GetAPIVersion()
		convertGizmo(obj, desired, path != "lossy")
		switch path {
		case "wrongversion":
			obj.SetAPIVersion(original)
		case "rename":
			obj.SetName(obj.GetName() + "-renamed")
		case "badlabel":
			obj.SetLabels(map[string]string{"bad key!": "x"})
		case "addlabel":
			labels := obj.GetLabels()
			if labels == nil {
				labels = map[string]string{}
			}
			labels["converted-by"] = "webhook"
			obj.SetLabels(labels)
		case "finalizer":
			obj.SetFinalizers(append(obj.GetFinalizers(), "conv.example.com/added"))
		case "extrafield":
			_ = unstructured.SetNestedField(obj.Object, "not in the schema", "spec", "extra")
		}
		data, _ := obj.MarshalJSON()
		out = append(out, runtime.RawExtension{Raw: data})
	}
	switch path {
	case "wronguid":
		uid = "not-the-request-uid"
	case "fewer":
		out = out[:0]
	case "failure":
		return nil, metav1.Status{Status: metav1.StatusFailure, Message: "gizmos cannot be converted today"}, uid
	}
	return out, ok, uid
}

// convertGizmo converts a Gizmo to desired (GROUP/VERSION) in place.
func convertGizmo(obj *unstructured.Unstructured, desired string, keepShape bool) {
	gv, _ := schema.ParseGroupVersion(desired)
	from := obj.GroupVersionKind().Version
	obj.SetAPIVersion(desired)
	spec, _, _ := unstructured.NestedMap(obj.Object, "spec")
	if spec == nil || from == gv.Version {
		return
	}
	annotations := obj.GetAnnotations()
	switch gv.Version {
	case "v2":
		out := map[string]any{}
		if c, ok := spec["color"]; ok {
			out["colour"] = c
		}
		if s, ok := spec["size"]; ok {
			out["dimensions"] = map[string]any{"size": s}
		}
		if shape, ok := annotations[shapeAnnotation]; ok {
			if keepShape {
				out["shape"] = shape
			}
			delete(annotations, shapeAnnotation)
		}
		spec = out
	case "v1":
		out := map[string]any{}
		if c, ok := spec["colour"]; ok {
			out["color"] = c
		}
		if s, ok, _ := unstructured.NestedFieldNoCopy(spec, "dimensions", "size"); ok {
			out["size"] = s
		}
		if shape, ok := spec["shape"].(string); ok && keepShape {
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[shapeAnnotation] = shape
		}
		spec = out
	}
	if len(annotations) == 0 {
		annotations = nil
	}
	obj.SetAnnotations(annotations)
	obj.Object["spec"] = spec
}
