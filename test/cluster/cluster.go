// Package cluster runs a real API server in the current process:
// kube-apiserver over an embedded etcd, behind a small loopback front that
// checks a bearer token, records requests and lets tests inject faults. Tests start one per package; the devcluster command starts
// one for people.
package cluster

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	certutil "k8s.io/client-go/util/cert"
	"k8s.io/klog/v2"
)

// Cluster is a running in-process API server.
type Cluster struct {
	// URL is the front's address, the server clients talk to.
	URL string
	// Token is the bearer token the front accepts.
	Token string
	// CAData is the PEM of the CA that signed the front's certificate.
	CAData []byte
	// Kubeconfig is the path of a kubeconfig for the front.
	Kubeconfig string
	// Config is a client config for the front.
	Config *rest.Config

	dir   string
	front *front
	etcd  *embed.Etcd
	stop  func()

	mu     sync.Mutex
	mapper *restmapper.DeferredDiscoveryRESTMapper // for CreateObjects
}

// Options configure Start.
type Options struct {
	// Dir keeps etcd's data, certificates and the kubeconfig; a temporary
	// directory (removed by Stop) when empty.
	Dir string
	// Log receives the apiserver's own output; discarded when nil.
	Log io.Writer
	// EmulatedVersion ("1.34") makes kube-apiserver emulate that
	// Kubernetes version, as --emulated-version does; "" for its own.
	// One emulating cluster at a time per process (see emulate).
	EmulatedVersion string
}

// Start starts etcd, kube-apiserver and the front.
func Start(opts Options) (c *Cluster, err error) {
	dir := opts.Dir
	removeDir := false
	if dir == "" {
		if dir, err = os.MkdirTemp("", "kubectl-crd-cluster-"); err != nil {
			return nil, err
		}
		removeDir = true
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	// The apiserver logs through klog; send it where the caller asked,
	// errors included.
	quietKlog(log)
	var cleanups []func()
	cleanup := func() {
		for i := len(cleanups) - 1; i >= 0; i-- {
			cleanups[i]()
		}
		if removeDir {
			os.RemoveAll(dir)
		}
	}
	defer func() {
		if err != nil {
			cleanup()
		}
	}()

	// The server compiles its admission policies anew every second; a
	// test that installs policies then waits for them. A tenth of that
	// changes when they take effect, not what they answer.
	cleanups = append(cleanups, generic.SetPolicyRefreshIntervalForTests(100*time.Millisecond))
	etcd, etcdURL, err := startEtcd(dir)
	if err != nil {
		return nil, err
	}
	cleanups = append(cleanups, func() { etcd.Close() })

	backend, stopServer, err := startAPIServer(context.Background(), dir, etcdURL, opts.EmulatedVersion, log)
	if err != nil {
		return nil, err
	}
	cleanups = append(cleanups, stopServer)

	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	fr, err := newFront(backend, token)
	if err != nil {
		return nil, err
	}
	// clientcmd sends credentials only over TLS, so the front serves TLS.
	certPEM, keyPEM, err := certutil.GenerateSelfSignedCertKey("127.0.0.1", []net.IP{net.ParseIP("127.0.0.1")}, []string{"localhost"})
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12})
	if err != nil {
		return nil, err
	}
	srv := fr.serve(l)
	cleanups = append(cleanups, func() {
		sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer scancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
	})

	c = &Cluster{
		URL:    "https://" + l.Addr().String(),
		Token:  token,
		CAData: certPEM,
		dir:    dir,
		front:  fr,
		etcd:   etcd,
		stop:   cleanup,
	}
	c.Config = &rest.Config{Host: c.URL, BearerToken: token, QPS: -1, TLSClientConfig: rest.TLSClientConfig{CAData: certPEM}}
	if c.Kubeconfig, err = c.WriteKubeconfig(filepath.Join(dir, "kubeconfig")); err != nil {
		return nil, err
	}
	return c, nil
}

// Stop stops the servers and removes what Start created.
func (c *Cluster) Stop() {
	if c != nil && c.stop != nil {
		c.stop()
		c.stop = nil
	}
}

// Dir is the directory holding the cluster's files.
func (c *Cluster) Dir() string { return c.dir }

// WriteKubeconfig writes a kubeconfig for the cluster to path.
func (c *Cluster) WriteKubeconfig(path string) (string, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kubectl-crd"] = &clientcmdapi.Cluster{Server: c.URL, CertificateAuthorityData: c.CAData}
	cfg.AuthInfos["kubectl-crd"] = &clientcmdapi.AuthInfo{Token: c.Token}
	cfg.Contexts["kubectl-crd"] = &clientcmdapi.Context{Cluster: "kubectl-crd", AuthInfo: "kubectl-crd", Namespace: "default"}
	cfg.CurrentContext = "kubectl-crd"
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", err
	}
	return path, nil
}

// Requests returns the requests the front has seen so far.
func (c *Cluster) Requests() []Request {
	c.front.mu.Lock()
	defer c.front.mu.Unlock()
	return append([]Request(nil), c.front.requests...)
}

// RequestsByAgent counts every request since the start, by the program
// in the user agent (the part before "/") and method.
func (c *Cluster) RequestsByAgent() map[string]map[string]int {
	c.front.mu.Lock()
	defer c.front.mu.Unlock()
	out := map[string]map[string]int{}
	for agent, methods := range c.front.all {
		out[agent] = map[string]int{}
		for m, n := range methods {
			out[agent][m] = n
		}
	}
	return out
}

// ResetRequests forgets the requests seen so far.
func (c *Cluster) ResetRequests() {
	c.front.mu.Lock()
	c.front.requests = nil
	c.front.mu.Unlock()
}

// SetHook installs a function that sees every authorized request before it
// is served; when it returns true it has answered the request itself. Nil
// removes it. Fault-injection tests use it.
func (c *Cluster) SetHook(hook func(w http.ResponseWriter, r *http.Request) bool) {
	c.front.mu.Lock()
	c.front.hook = hook
	c.front.mu.Unlock()
}

func quietKlog(w io.Writer) {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for name, value := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"} {
		_ = fs.Set(name, value)
	}
	klog.SetOutput(w)
}

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
