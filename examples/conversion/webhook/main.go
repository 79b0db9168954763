// Command webhook is the conversion webhook of the example Backup CRD
// (examples/conversion/crd.yaml), small enough to read in a minute and run
// on a developer's machine: it serves HTTPS on 127.0.0.1:9443 with a
// certificate for localhost and for the service the CRD names
// (backup-conversion.backup-system.svc), made at start and written, with
// its CA, to --cert-dir. Then:
//
//	kubectl crd convert -f examples/conversion/backups.yaml --crds examples/conversion/crd.yaml \
//	  --round-trip --webhook-url https://localhost:9443 --webhook-ca DIR/ca.crt
//
// v2 groups retention settings (spec.retention.days) and adds
// spec.retention.copies, which v1 cannot hold: the webhook keeps it in the
// annotation conversion.example.com/retention-copies of the v1 object
// (unless it is 1, v2's default) and restores it. --forget-copies drops
// it instead, the mistake a round trip finds.
package main

import (
	"crypto/tls"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	certutil "k8s.io/client-go/util/cert"
)

const copiesAnnotation = "conversion.example.com/retention-copies"

func main() {
	listen := flag.String("listen", "127.0.0.1:9443", "Address to serve HTTPS on.")
	certDir := flag.String("cert-dir", filepath.Join(os.TempDir(), "backup-conversion"), "Where the certificate, its key and ca.crt are written.")
	forget := flag.Bool("forget-copies", false, "Drop spec.retention.copies when converting to v1 (a lossy webhook).")
	flag.Parse()

	cert, err := certificate(*certDir)
	if err != nil {
		log.Fatal(err)
	}
	l, err := tls.Listen("tcp", *listen, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		log.Fatal(err)
	}
	log.Printf("serving conversions on https://%s/convert (CA: %s)", l.Addr(), filepath.Join(*certDir, "ca.crt"))
	http.HandleFunc("/convert", func(w http.ResponseWriter, r *http.Request) { serve(w, r, !*forget) })
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(l))
}

// certificate makes a self-signed certificate for localhost, 127.0.0.1
// and the CRD's service, and writes it (it is its own CA) to dir.
func certificate(dir string) (tls.Certificate, error) {
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("localhost", []net.IP{net.ParseIP("127.0.0.1")},
		[]string{"backup-conversion.backup-system.svc"})
	if err != nil {
		return tls.Certificate{}, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return tls.Certificate{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "ca.crt"), certPEM, 0o644); err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// serve answers one ConversionReview.
func serve(w http.ResponseWriter, r *http.Request, keepCopies bool) {
	var review apiextensionsv1.ConversionReview
	if err := json.NewDecoder(r.Body).Decode(&review); err != nil || review.Request == nil {
		http.Error(w, "expected a ConversionReview", http.StatusBadRequest)
		return
	}
	resp := &apiextensionsv1.ConversionResponse{UID: review.Request.UID, Result: metav1.Status{Status: metav1.StatusSuccess}}
	for _, raw := range review.Request.Objects {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(raw.Raw); err != nil {
			resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}
			break
		}
		if err := convert(obj, review.Request.DesiredAPIVersion, keepCopies); err != nil {
			resp.Result = metav1.Status{Status: metav1.StatusFailure, Message: err.Error()}
			break
		}
		data, _ := obj.MarshalJSON()
		resp.ConvertedObjects = append(resp.ConvertedObjects, runtime.RawExtension{Raw: data})
	}
	if resp.Result.Status != metav1.StatusSuccess {
		resp.ConvertedObjects = nil
	}
	review.Request, review.Response = nil, resp
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(&review)
}

// convert changes a Backup to the apiVersion desired, in place. Only the
// spec differs between the versions; metadata is the server's business
// (it keeps only changes to labels and annotations).
func convert(obj *unstructured.Unstructured, desired string, keepCopies bool) error {
	from := obj.GetAPIVersion()
	obj.SetAPIVersion(desired)
	if from == desired {
		return nil
	}
	spec, _, _ := unstructured.NestedMap(obj.Object, "spec")
	if spec == nil {
		return nil
	}
	annotations := obj.GetAnnotations()
	switch desired {
	case "conversion.example.com/v2":
		retention := map[string]any{}
		if days, ok := spec["retentionDays"]; ok {
			retention["days"] = days
		}
		if copies, ok := annotations[copiesAnnotation]; ok {
			n, err := strconv.ParseInt(copies, 10, 64)
			if err != nil {
				return fmt.Errorf("annotation %s: %v", copiesAnnotation, err)
			}
			retention["copies"] = n
			delete(annotations, copiesAnnotation)
		}
		delete(spec, "retentionDays")
		if len(retention) > 0 {
			spec["retention"] = retention
		}
	case "conversion.example.com/v1":
		retention, _, _ := unstructured.NestedMap(spec, "retention")
		if days, ok := retention["days"]; ok {
			spec["retentionDays"] = days
		}
		// 1 is v2's default: a v2 object without copies gets it again.
		if copies, ok := retention["copies"]; ok && keepCopies && fmt.Sprint(copies) != "1" {
			if annotations == nil {
				annotations = map[string]string{}
			}
			annotations[copiesAnnotation] = fmt.Sprint(copies)
		}
		delete(spec, "retention")
	default:
		return fmt.Errorf("cannot convert to %s", desired)
	}
	if len(annotations) == 0 {
		annotations = nil
	}
	obj.SetAnnotations(annotations)
	obj.Object["spec"] = spec
	return nil
}
