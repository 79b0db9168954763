package e2e

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

// crdHost is the name the URL tests give the server: no resolver knows
// it (.invalid is reserved), so a fetch that arrives came through the
// proxy, which sends every connection to the server.
const crdHost = "crds.invalid"

// testCA makes a certificate authority and a certificate it signed for
// crdHost and 127.0.0.1; it writes the authority's certificate to a file
// for SSL_CERT_FILE (the binary trusts it as it trusts the system's).
func testCA(t *testing.T) (caFile string, cert tls.Certificate) {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	caKey, leafKey := key(), key()
	now := time.Now()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubectl-crd test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: crdHost},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(time.Hour), DNSNames: []string{crdHost},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o644); err != nil {
		t.Fatal(err)
	}
	return caFile, tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}
}

// crdServer serves the examples over HTTPS: /crds/crontab.yaml,
// /objects/crontabs.yaml, /missing.yaml (404), /slow.yaml (never
// answers), /latest/crontab.yaml (a redirect to the CRD).
func crdServer(t *testing.T) (caFile string, s *httptest.Server) {
	t.Helper()
	caFile, cert := testCA(t)
	mux := http.NewServeMux()
	mux.HandleFunc("/crds/crontab.yaml", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(repoRoot, "examples/crds/crontab.yaml"))
	})
	mux.HandleFunc("/objects/crontabs.yaml", func(w http.ResponseWriter, r *http.Request) {
		http.ServeFile(w, r, filepath.Join(repoRoot, "examples/objects/invalid/crontabs.yaml"))
	})
	mux.HandleFunc("/slow.yaml", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(30 * time.Second):
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/latest/crontab.yaml", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/crds/crontab.yaml", http.StatusFound)
	})
	s = httptest.NewUnstartedServer(mux)
	s.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	s.StartTLS()
	t.Cleanup(s.Close)
	return caFile, s
}

// TestURLSources reads CRDs and objects from URLs: directly, after a
// redirect, through an HTTP CONNECT proxy named by HTTPS_PROXY, and from
// a server that answers 404 or never answers; a problem in an object
// read from a URL is placed at URL:line:col.
func TestURLSources(t *testing.T) {
	caFile, s := crdServer(t)
	trust := []string{"SSL_CERT_FILE=" + caFile}
	local := bin.Run(t, "kubectl-crd", nil, "validate", "--crds", filepath.Join(repoRoot, "examples/crds"), "-f", filepath.Join(repoRoot, "examples/objects/invalid/crontabs.yaml"))

	proxy, err := harness.StartConnectProxy(s.Listener.Addr().String(), harness.ConnectProxyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	viaProxy := append([]string{"HTTPS_PROXY=" + proxy.URL, "NO_PROXY="}, trust...)
	byName := "https://" + crdHost

	for _, c := range []struct {
		name string
		env  []string
		base string
	}{
		{"direct", trust, s.URL},
		{"through the proxy", viaProxy, byName},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := bin.Run(t, "kubectl-crd", c.env, "validate", "--crds", c.base+"/latest/crontab.yaml", "-f", c.base+"/objects/crontabs.yaml")
			want := strings.ReplaceAll(local.Stdout, filepath.Join(repoRoot, "examples/objects/invalid/crontabs.yaml"), c.base+"/objects/crontabs.yaml")
			if got.Code != local.Code || got.Stdout != want {
				t.Errorf("exit %d:\n%s%s\nwant exit %d:\n%s", got.Code, got.Stdout, got.Stderr, local.Code, want)
			}
			if !strings.Contains(got.Stdout, c.base+"/objects/crontabs.yaml:7:3: spec.cronSpec") {
				t.Errorf("no position at the URL:\n%s", got.Stdout)
			}
		})
	}
	if proxy.Connections() == 0 {
		t.Error("nothing went through the proxy")
	}

	for _, c := range []struct {
		name, url, want string
		env             []string
		within          time.Duration
	}{
		{"404", s.URL + "/missing.yaml", "error: --crds " + s.URL + "/missing.yaml: 404 Not Found\n", trust, 0},
		{"no answer", s.URL + "/slow.yaml", "error: --crds " + s.URL + "/slow.yaml: no answer within 1s (--request-timeout)\n", trust, 10 * time.Second},
		{"an authority not trusted", s.URL + "/crds/crontab.yaml", "certificate signed by unknown authority", nil, 0},
		{"a proxy that refuses", byName + "/crds/crontab.yaml", "Forbidden", append([]string{"HTTPS_PROXY=http://" + refusingProxy(t, s)}, trust...), 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := bin.Run(t, "kubectl-crd", c.env, "list", "--request-timeout", "1s", "--crds", c.url)
			if r.Code != 2 || !strings.Contains(r.Stderr, c.want) || r.Stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and %q", r.Code, r.Stdout, r.Stderr, c.want)
			}
			if c.within > 0 && r.Elapsed > c.within {
				t.Errorf("took %v", r.Elapsed)
			}
		})
	}
}

func refusingProxy(t *testing.T, s *httptest.Server) string {
	p, err := harness.StartConnectProxy(s.Listener.Addr().String(), harness.ConnectProxyOptions{Refuse: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return strings.TrimPrefix(p.URL, "http://")
}

// TestGitSources: diff --old git:HEAD~1:crds gives the report diff
// --old gives for HEAD~1's crds/ written to a directory, and leaves the
// work tree and index as they were.
func TestGitSources(t *testing.T) {
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	crd, err := os.ReadFile(filepath.Join(repoRoot, "examples/crds/crontab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	write := func(text string) {
		if err := os.MkdirAll(filepath.Join(dir, "crds"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "crds", "crontab.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(string(crd))
	git("init", "-q")
	git("add", ".")
	git("commit", "-q", "-m", "the CRD")
	tightened := strings.Replace(string(crd), "maximum: 10", "maximum: 5", 1)
	if tightened == string(crd) {
		t.Fatal("the example CRD has no maximum: 10 to tighten")
	}
	write(tightened)
	git("commit", "-q", "-am", "a tighter bound")
	write(tightened + "\n# being edited\n")

	checkout := t.TempDir()
	if err := os.WriteFile(filepath.Join(checkout, "crontab.yaml"), []byte(git("show", "HEAD~1:crds/crontab.yaml")), 0o644); err != nil {
		t.Fatal(err)
	}
	index := func() []byte {
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			t.Fatal(err)
		}
		st, _ := os.Stat(filepath.Join(dir, ".git", "index"))
		return append(data, st.ModTime().String()...)
	}
	before := index()
	env := []string{"PATH=" + bin.Dir + string(os.PathListSeparator) + filepath.Dir(gitPath)}
	got := bin.RunIn(t, dir, "kubectl-crd", env, "diff", "--old", "git:HEAD~1:crds", "-f", "crds")
	want := bin.RunIn(t, dir, "kubectl-crd", env, "diff", "--old", checkout, "-f", "crds")
	if string(index()) != string(before) {
		t.Error("the index changed")
	}
	if got.Code != 1 || got.Code != want.Code || got.Stdout != want.Stdout || !strings.Contains(got.Stdout, "maximum 10 is now 5") {
		t.Errorf("git:HEAD~1:crds exit %d:\n%s%s\na checkout of HEAD~1 exit %d:\n%s%s", got.Code, got.Stdout, got.Stderr, want.Code, want.Stdout, want.Stderr)
	}
	if status := git("status", "--porcelain"); status != " M crds/crontab.yaml\n" {
		t.Errorf("git status after: %q", status)
	}
	r := bin.RunIn(t, dir, "kubectl-crd", env, "diff", "--old", "git:v9:crds", "-f", "crds")
	if r.Code != 2 || r.Stderr != "error: --old git:v9:crds: git knows no revision v9\n" {
		t.Errorf("an unknown revision: exit %d, %q", r.Code, r.Stderr)
	}
}

// TestChartSources validates objects against the CRDs a chart installs:
// its crds/ files and its dependency's; helm template's output piped in
// is read as any other input.
func TestChartSources(t *testing.T) {
	chart := filepath.Join(repoRoot, "test/testdata/charts/widgets")
	objects := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(objects, []byte(`apiVersion: charts.example.com/v1
kind: Widget
metadata:
  name: huge
spec:
  size: 400
---
apiVersion: charts.example.com/v1
kind: Gadget
metadata:
  name: g
spec:
  widgets: [a-widget-name-longer-than-twenty]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := bin.Run(t, "kubectl-crd", nil, "validate", "--crds", chart, "-f", objects)
	want := objects + ":6:3: spec.size: Invalid value: 400: spec.size in body should be less than or equal to 100\n" +
		objects + ":12:1: spec: Invalid value: widget names are at most 20 characters\n0 valid, 2 invalid, 0 skipped, 0 errors\n"
	if r.Code != 1 || r.Stdout != want {
		t.Errorf("exit %d:\n%s%s\nwant exit 1:\n%s", r.Code, r.Stdout, r.Stderr, want)
	}
	rendered, err := os.ReadFile(filepath.Join(repoRoot, "test/testdata/charts/widgets.rendered.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	r = bin.RunStdin(t, string(rendered), "kubectl-crd", nil, "validate", "--crds", chart, "-f", "-")
	if r.Code != 0 || !strings.HasSuffix(r.Stdout, "4 valid, 0 invalid, 0 skipped, 0 errors\n") {
		t.Errorf("helm template's output: exit %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// A directory of charts is read as files: a template is said to be
	// one, with its chart, not as invalid YAML.
	r = bin.Run(t, "kubectl-crd", nil, "list", "--crds", filepath.Join(repoRoot, "test/testdata/charts"))
	if want := "a template of the Helm chart " + chart + ", not YAML until it is rendered"; r.Code != 2 || !strings.Contains(r.Stderr, want) {
		t.Errorf("a directory of charts is read as files: exit %d, %q; want it to say %q", r.Code, r.Stderr, want)
	}
}
