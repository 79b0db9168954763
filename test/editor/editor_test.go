// Package editor tests the editor recipe with the editor's own language
// server: yaml-language-server (the VS Code YAML extension's server, from
// the npm registry) finds each custom resource's schema in the directory
// "kubectl crd openapi --layout vscode" writes, through its
// yaml.kubernetesCRDStore setting, and reports an invalid CronTab where
// the field is.
package editor

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// serverVersion is the yaml-language-server release the test installs.
const serverVersion = "2.0.0"

func TestCRDStore(t *testing.T) {
	if testing.Short() {
		t.Skip("installs yaml-language-server from the npm registry")
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not on PATH: the editor test needs Node.js", tool)
			}
			t.Skipf("%s is not on PATH: the editor recipe is not tested", tool)
		}
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	modules := t.TempDir()
	npm := exec.Command("npm", "install", "--no-audit", "--no-fund", "--prefix", modules, "yaml-language-server@"+serverVersion)
	if out, err := npm.CombinedOutput(); err != nil {
		t.Fatalf("npm install yaml-language-server@%s: %v\n%s", serverVersion, err, out)
	}

	// The schemas, as docs/editors-ci.md's recipe exports them.
	store := t.TempDir()
	export := exec.Command("go", "run", "./cmd/kubectl-crd",
		"openapi", "--layout", "vscode", "--output-dir", store, "--crds", "examples/crds")
	export.Dir = root
	export.Env = append(os.Environ(), "KUBECONFIG="+filepath.Join(t.TempDir(), "none"))
	if out, err := export.CombinedOutput(); err != nil {
		t.Fatalf("kubectl crd openapi --layout vscode: %v\n%s", err, out)
	}
	var mu sync.Mutex
	var fetched []string
	files := http.FileServer(http.Dir(store))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		fetched = append(fetched, r.URL.Path)
		mu.Unlock()
		files.ServeHTTP(w, r)
	}))
	defer srv.Close()

	ls := startServer(t, filepath.Join(modules, "node_modules", "yaml-language-server", "bin", "yaml-language-server"), map[string]any{
		"validate":           true,
		"schemaStore":        map[string]any{"enable": false},
		"schemas":            map[string]any{"kubernetes": "*.yaml"},
		"kubernetesCRDStore": map[string]any{"enable": true, "url": srv.URL},
	})

	valid, err := os.ReadFile(filepath.Join(root, "examples", "objects", "valid", "crontabs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// One document (the server checks a file's documents alike): the first
	// valid CronTab.
	first, _, _ := strings.Cut(string(valid), "\n---")
	if diags := ls.diagnose(t, "file:///work/valid.yaml", first); len(diags) != 0 {
		t.Errorf("a valid CronTab: %v", diags)
	}
	invalid := "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: nightly\nspec:\n  cronSpec: \"* * * * */5\"\n  replicas: \"three\"\n"
	diags := ls.diagnose(t, "file:///work/invalid.yaml", invalid)
	found := false
	for _, d := range diags {
		found = found || (d.Range.Start.Line == 6 && strings.Contains(d.Message, "integer"))
	}
	if !found {
		t.Errorf("replicas: \"three\" on line 7: yaml-language-server reports %v", diags)
	}
	t.Logf("yaml-language-server on the invalid CronTab: %v", diags)
	mu.Lock()
	defer mu.Unlock()
	if !slices.Contains(fetched, "/stable.example.com/crontab_v1.json") {
		t.Errorf("yaml-language-server fetched %q, not the CronTab v1 schema at the catalog's path", fetched)
	}
}

type diagnostic struct {
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
	} `json:"range"`
	Message string `json:"message"`
}

func (d diagnostic) String() string {
	return fmt.Sprintf("%d:%d: %s", d.Range.Start.Line+1, d.Range.Start.Character+1, d.Message)
}

// languageServer speaks the language server protocol with one server over
// its standard input and output.
type languageServer struct {
	mu          sync.Mutex // one message at a time on in
	in          io.Writer
	settings    map[string]any
	diagnostics chan published
	nextID      int
	version     int
}

type published struct {
	URI         string       `json:"uri"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

type message struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Params json.RawMessage `json:"params,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
}

func startServer(t *testing.T, script string, settings map[string]any) *languageServer {
	cmd := exec.Command("node", script, "--stdio")
	cmd.Env = append(os.Environ(), "NO_PROXY=127.0.0.1", "no_proxy=127.0.0.1")
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
	t.Cleanup(func() {
		in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("yaml-language-server's stderr:\n%s", stderr.String())
		}
	})
	ls := &languageServer{in: in, settings: settings, diagnostics: make(chan published, 16)}
	initialized := make(chan struct{})
	go ls.read(out, initialized)
	ls.send(message{ID: ls.id(), Method: "initialize"}, map[string]any{
		"processId": os.Getpid(), "rootUri": "file:///work", "capabilities": map[string]any{
			"workspace": map[string]any{"configuration": true}},
	})
	select {
	case <-initialized:
	case <-time.After(time.Minute):
		t.Fatalf("yaml-language-server did not answer initialize:\n%s", stderr.String())
	}
	ls.send(message{Method: "initialized"}, map[string]any{})
	ls.send(message{Method: "workspace/didChangeConfiguration"}, map[string]any{"settings": map[string]any{"yaml": settings}})
	return ls
}

func (ls *languageServer) id() json.RawMessage {
	ls.nextID++
	return json.RawMessage(strconv.Itoa(ls.nextID))
}

// diagnose opens a document and returns the diagnostics the server
// publishes for it.
func (ls *languageServer) diagnose(t *testing.T, uri, text string) []diagnostic {
	t.Helper()
	ls.version++
	ls.send(message{Method: "textDocument/didOpen"}, map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "yaml", "version": ls.version, "text": text}})
	timeout := time.After(time.Minute)
	for {
		select {
		case p := <-ls.diagnostics:
			if p.URI == uri {
				return p.Diagnostics
			}
		case <-timeout:
			t.Fatalf("no diagnostics for %s within a minute", uri)
		}
	}
}

func (ls *languageServer) send(m message, params any) {
	if params != nil {
		m.Params, _ = json.Marshal(params)
	}
	body, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		message
	}{"2.0", m})
	ls.mu.Lock()
	defer ls.mu.Unlock()
	fmt.Fprintf(ls.in, "Content-Length: %d\r\n\r\n%s", len(body), body)
}

// read takes the server's messages: the answer to initialize, diagnostics,
// and the requests a client must answer (the settings it asks for).
func (ls *languageServer) read(out io.Reader, initialized chan struct{}) {
	r := bufio.NewReader(out)
	for {
		length := 0
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var m message
		if json.Unmarshal(body, &m) != nil {
			continue
		}
		switch {
		case m.Method == "" && string(m.ID) == "1":
			close(initialized)
		case m.Method == "textDocument/publishDiagnostics":
			var p published
			if json.Unmarshal(m.Params, &p) == nil {
				ls.diagnostics <- p
			}
		case m.Method == "workspace/configuration" && m.ID != nil:
			var req struct {
				Items []struct{ Section string } `json:"items"`
			}
			_ = json.Unmarshal(m.Params, &req)
			result := make([]any, len(req.Items))
			for i, item := range req.Items {
				if item.Section == "yaml" {
					result[i] = ls.settings
				}
			}
			data, _ := json.Marshal(result)
			ls.send(message{ID: m.ID, Result: data}, nil)
		case m.ID != nil && m.Method != "":
			ls.send(message{ID: m.ID, Result: json.RawMessage("null")}, nil)
		}
	}
}
