// Package proxy runs every verb that talks to a cluster the ways users
// reach theirs: through an HTTP CONNECT proxy named by HTTPS_PROXY (and
// past it for NO_PROXY hosts), through a SOCKS5 proxy named by the
// kubeconfig's proxy-url, and through kubectl proxy's plain-HTTP address;
// and with a proxy that refuses, stalls or is gone.
package proxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/test/cluster"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	"k8s.io/client-go/tools/clientcmd"
)

var (
	testCluster *cluster.Cluster
	bin         *harness.Bin
	repoRoot    string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if repoRoot, err = filepath.Abs("../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var stop func()
	if bin, testCluster, stop, err = harness.Start(repoRoot); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	if err := bin.BuildKubectl(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	if _, err := testCluster.LoadCRDs(ctx, filepath.Join(repoRoot, "examples/crds")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := testCluster.Load(ctx, filepath.Join(repoRoot, "examples/objects/valid")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// unresolvable is the host the kubeconfigs name for the cluster: no
// resolver knows it (.invalid is reserved), so a command that reaches the
// cluster went through the proxy, which sends every connection to it.
const unresolvable = "cluster.invalid"

// unresolvableServer writes a kubeconfig for the test cluster that names
// it by the unresolvable host, with proxyURL as its proxy-url ("" for
// none).
func unresolvableServer(t *testing.T, proxyURL string) string {
	t.Helper()
	config, err := clientcmd.LoadFromFile(testCluster.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range config.Clusters {
		u, err := url.Parse(c.Server)
		if err != nil {
			t.Fatal(err)
		}
		u.Host = unresolvable + ":" + u.Port()
		c.Server, c.ProxyURL = u.String(), proxyURL
		// The front's certificate names localhost.
		c.TLSServerName = "localhost"
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*config, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// frontAddress is the test cluster's host:port.
func frontAddress(t *testing.T) string {
	u, err := url.Parse(testCluster.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// verbs are the commands that talk to the cluster, each with the exit
// status it ends with here.
var verbs = []struct {
	name string
	args []string
	code int
}{
	{"get", []string{"get", "crontabs", "-A"}, 0},
	{"list", []string{"list"}, 0},
	{"explain", []string{"explain", "crontabs.spec"}, 0},
	{"openapi", []string{"openapi", "stable.example.com/v1"}, 0},
	{"validate", []string{"validate", "-f", "examples/objects/valid"}, 0},
	{"diff", []string{"diff", "-f", "examples/crds/crontab.yaml"}, 0},
	{"migrate", []string{"migrate", "crontabs.stable.example.com"}, 0},
	{"completion", []string{"__complete", "get", ""}, 0},
	{"convert", []string{"convert", "-f", "examples/objects/valid", "--output-version", "v1beta1"}, 0},
	{"sample", []string{"sample", "crontabs"}, 0},
}

// runVerbs runs every verb (and get -w and lsp) with kubeconfig and env,
// and checks each through through (the number of connections the proxy
// has carried, nil for none to count).
func runVerbs(t *testing.T, config string, env []string, through func() int) {
	env = append([]string{"KUBECONFIG=" + config}, env...)
	for _, v := range verbs {
		t.Run(v.name, func(t *testing.T) {
			before := count(through)
			r := runIn(t, env, v.args...)
			if r.Code != v.code {
				t.Fatalf("exit %d, want %d\n%s%s", r.Code, v.code, r.Stdout, r.Stderr)
			}
			if v.name == "completion" && !strings.Contains(r.Stdout, "crontabs") {
				t.Errorf("completion lacks the cluster's crontabs:\n%s", r.Stdout)
			}
			if through != nil && count(through) == before {
				t.Errorf("no connection went through the proxy")
			}
		})
	}
	t.Run("get -w", func(t *testing.T) {
		before := count(through)
		run := bin.Start(t, "kubectl-crd", append(env, "PWD="+repoRoot), "get", "crontabs", "-A", "-w")
		time.Sleep(3 * time.Second)
		run.Signal(t, syscall.SIGINT)
		r := run.Wait(t)
		// kubectl's watch ends with 1 on a signal, as kubectl get -w.
		if r.Code != 1 || !strings.Contains(r.Stdout, "nightly") {
			t.Errorf("exit %d, want 1 after the rows:\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		if through != nil && count(through) == before {
			t.Errorf("no connection went through the proxy")
		}
	})
	t.Run("lsp", func(t *testing.T) {
		before := count(through)
		diagnostics := lspDiagnostics(t, env)
		// The CRD comes from the cluster: without it the kind is unknown.
		if !strings.Contains(diagnostics, "spec.replicas") {
			t.Errorf("diagnostics lack the cluster CRD's check of spec.replicas:\n%s", diagnostics)
		}
		if through != nil && count(through) == before {
			t.Errorf("no connection went through the proxy")
		}
	})
}

func count(f func() int) int {
	if f == nil {
		return 0
	}
	return f()
}

// runIn runs kubectl crd in the repository's root (the paths above are
// relative to it).
func runIn(t *testing.T, env []string, args ...string) harness.Result {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin.Dir, "kubectl-crd"), args...)
	cmd.Dir = repoRoot
	home := t.TempDir()
	cmd.Env = append([]string{"PATH=" + bin.Dir, "HOME=" + home, "KUBECTL_CRD_CACHE_DIR=" + filepath.Join(home, "crds")}, env...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := harness.Result{Stdout: stdout.String(), Stderr: stderr.String(), Elapsed: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

// lspDiagnostics starts kubectl crd lsp, opens a CronTab whose replicas
// is a string, and returns the first diagnostics it publishes (raw).
func lspDiagnostics(t *testing.T, env []string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin.Dir, "kubectl-crd"), "lsp")
	cmd.Env = append([]string{"HOME=" + t.TempDir()}, env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	send := func(s string) { fmt.Fprintf(in, "Content-Length: %d\r\n\r\n%s", len(s), s) }
	doc := "apiVersion: stable.example.com/v1\\nkind: CronTab\\nmetadata:\\n  name: x\\nspec:\\n  cronSpec: '* * * * *'\\n  image: i\\n  replicas: two\\n"
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/x.yaml","languageId":"yaml","version":1,"text":"` + doc + `"}}}`)
	found := make(chan string, 1)
	go func() {
		br := bufio.NewReader(out)
		for {
			n := 0
			for {
				line, err := br.ReadString('\n')
				if err != nil {
					return
				}
				if line = strings.TrimSpace(line); line == "" {
					break
				}
				if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
					fmt.Sscan(v, &n)
				}
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(br, body); err != nil {
				return
			}
			if strings.Contains(string(body), "publishDiagnostics") {
				found <- string(body)
				return
			}
		}
	}()
	select {
	case d := <-found:
		send(`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`)
		send(`{"jsonrpc":"2.0","method":"exit"}`)
		return d
	case <-time.After(60 * time.Second):
		t.Fatalf("no diagnostics in a minute; stderr:\n%s", stderr.String())
		return ""
	}
}

// TestHTTPSProxy: HTTPS_PROXY names an HTTP CONNECT proxy; the kubeconfig
// names a host only the proxy can reach.
func TestHTTPSProxy(t *testing.T) {
	p, err := harness.StartConnectProxy(frontAddress(t), harness.ConnectProxyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	config := unresolvableServer(t, "")
	runVerbs(t, config, []string{"HTTPS_PROXY=" + p.URL}, p.Connections)
	for target := range p.Targets() {
		if !strings.HasPrefix(target, unresolvable+":") {
			t.Errorf("a tunnel to %s", target)
		}
	}
	t.Logf("tunnels through the proxy: %v", p.Targets())
}

// TestNoProxy: a host in NO_PROXY is reached directly, not through the
// proxy HTTPS_PROXY names (here the direct way fails, as no resolver
// knows the host, and the proxy sees nothing).
func TestNoProxy(t *testing.T) {
	p, err := harness.StartConnectProxy(frontAddress(t), harness.ConnectProxyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	config := unresolvableServer(t, "")
	r := runIn(t, []string{"KUBECONFIG=" + config, "HTTPS_PROXY=" + p.URL, "NO_PROXY=" + unresolvable}, "get", "crontabs", "-A", "--request-timeout", "10s")
	if r.Code == 0 || !strings.Contains(r.Stderr, unresolvable) || p.Connections() != 0 {
		t.Errorf("exit %d, %d connections through the proxy; want a direct dial of %s that fails:\n%s", r.Code, p.Connections(), unresolvable, r.Stderr)
	}
	// And the loopback cluster address is never proxied.
	r = runIn(t, []string{"KUBECONFIG=" + testCluster.Kubeconfig, "HTTPS_PROXY=" + p.URL}, "get", "crontabs", "-A")
	if r.Code != 0 || p.Connections() != 0 {
		t.Errorf("loopback: exit %d, %d connections through the proxy\n%s", r.Code, p.Connections(), r.Stderr)
	}
}

// TestSOCKS5ProxyURL: the kubeconfig's proxy-url names a SOCKS5 proxy, as
// the Kubernetes docs' SSH tunnel recipe has it.
func TestSOCKS5ProxyURL(t *testing.T) {
	p, err := harness.StartSOCKS5Proxy(frontAddress(t))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	config := unresolvableServer(t, p.URL)
	runVerbs(t, config, nil, p.Connections)
	t.Logf("connections through the proxy: %v", p.Targets())
}

// TestKubectlProxy: kubectl proxy serves the cluster on a plain-HTTP
// loopback address with its own credentials; the plugin's kubeconfig has
// none, so what works went through kubectl proxy.
func TestKubectlProxy(t *testing.T) {
	cmd := exec.Command(filepath.Join(bin.Dir, "kubectl"), "proxy", "--port=0", "--kubeconfig="+testCluster.Kubeconfig)
	cmd.Env = []string{"HOME=" + t.TempDir()}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	_, addr, ok := strings.Cut(strings.TrimSpace(line), "Starting to serve on ")
	if !ok {
		t.Fatalf("kubectl proxy says %q", line)
	}
	config := filepath.Join(t.TempDir(), "kubeconfig")
	text := "apiVersion: v1\nkind: Config\nclusters: [{name: proxy, cluster: {server: http://" + addr + "}}]\n" +
		"contexts: [{name: proxy, context: {cluster: proxy, user: none}}]\ncurrent-context: proxy\nusers: [{name: none, user: {}}]\n"
	if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	runVerbs(t, config, nil, nil)
}

// TestProxyFailures: a proxy that refuses the tunnel, one that never
// answers, and one that is gone: each a clear error, within
// --request-timeout.
func TestProxyFailures(t *testing.T) {
	refusing, err := harness.StartConnectProxy(frontAddress(t), harness.ConnectProxyOptions{Refuse: true})
	if err != nil {
		t.Fatal(err)
	}
	defer refusing.Close()
	stalling, err := harness.StartConnectProxy(frontAddress(t), harness.ConnectProxyOptions{Stall: true})
	if err != nil {
		t.Fatal(err)
	}
	defer stalling.Close()
	gone, err := harness.StartConnectProxy(frontAddress(t), harness.ConnectProxyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gone.Close()
	config := unresolvableServer(t, "")
	for _, c := range []struct {
		name, proxy, says string
	}{
		{"refuses", refusing.URL, "through the proxy " + refusing.URL + ": Forbidden"},
		{"stalls", stalling.URL, "through the proxy " + stalling.URL},
		{"gone", gone.URL, "through the proxy " + gone.URL + ": proxyconnect tcp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, args := range [][]string{{"get", "crontabs", "-A"}, {"validate", "-f", "examples/objects/valid"}, {"list"}} {
				r := runIn(t, []string{"KUBECONFIG=" + config, "HTTPS_PROXY=" + c.proxy}, append(args, "--request-timeout", "3s")...)
				// kubectl's discovery tries five times before it gives
				// up, --request-timeout each.
				if r.Code == 0 || r.Elapsed > 5*3*time.Second+5*time.Second {
					t.Errorf("%v: exit %d after %v; want an error within five timeouts:\n%s", args, r.Code, r.Elapsed.Round(time.Millisecond), r.Stderr)
				}
				if !strings.Contains(r.Stderr, c.says) || strings.Contains(r.Stderr, "goroutine ") {
					t.Errorf("%v: the error does not say %q:\n%s", args, c.says, r.Stderr)
				}
				t.Logf("%v: exit %d after %v: %s", args, r.Code, r.Elapsed.Round(time.Millisecond), strings.TrimSpace(r.Stderr))
			}
		})
	}
}
