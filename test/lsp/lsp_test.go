// Package lsp drives kubectl crd lsp as editors do: the built binary over
// stdio with framed JSON-RPC, and Neovim's own client. Its diagnostics must
// be validate's findings on the same text, line for line and message for
// message.
package lsp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

var (
	bin      *harness.Bin
	repoRoot string
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
	if bin, err = harness.Build(repoRoot); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer bin.Remove()
	return m.Run()
}

// crdDirs are the CRDs of the checks, as --crds.
func crdDirs() []string {
	return []string{filepath.Join(repoRoot, "test/testdata/crds"), filepath.Join(repoRoot, "examples/crds")}
}

// server is a running kubectl crd lsp and a client of it.
type server struct {
	t      testing.TB
	cmd    *exec.Cmd
	in     io.WriteCloser
	mu     sync.Mutex
	nextID int
	calls  map[int]chan map[string]json.RawMessage
	diags  chan published
}

type published struct {
	URI         string       `json:"uri"`
	Version     int          `json:"version"`
	Diagnostics []diagnostic `json:"diagnostics"`
}

type diagnostic struct {
	Range struct {
		Start struct{ Line, Character int } `json:"start"`
		End   struct{ Line, Character int } `json:"end"`
	} `json:"range"`
	Severity int    `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
}

func startServer(t testing.TB, args ...string) *server {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin.Dir, "kubectl-crd"), append([]string{"lsp"}, args...)...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "KUBECONFIG=" + filepath.Join(t.TempDir(), "none")}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, cmd: cmd, in: in, calls: map[int]chan map[string]json.RawMessage{}, diags: make(chan published, 1000)}
	go s.read(out)
	t.Cleanup(func() {
		// As an editor ends a session (a no-op when the test did).
		data := []string{`{"jsonrpc":"2.0","id":999999,"method":"shutdown"}`, `{"jsonrpc":"2.0","method":"exit"}`}
		for _, d := range data {
			fmt.Fprintf(in, "Content-Length: %d\r\n\r\n%s", len(d), d)
		}
		in.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	return s
}

func (s *server) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		n := 0
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			} else {
				s.t.Errorf("stdout carries something else than the protocol: %q", line)
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			s.t.Errorf("not JSON on stdout: %q", body)
			return
		}
		if id, ok := m["id"]; ok && m["method"] == nil {
			var n int
			_ = json.Unmarshal(id, &n)
			s.mu.Lock()
			ch := s.calls[n]
			s.mu.Unlock()
			if ch != nil {
				ch <- m
			}
			continue
		}
		var method string
		_ = json.Unmarshal(m["method"], &method)
		if method == "textDocument/publishDiagnostics" {
			var p published
			_ = json.Unmarshal(m["params"], &p)
			s.diags <- p
		}
	}
}

func (s *server) send(v any) {
	data, _ := json.Marshal(v)
	if _, err := fmt.Fprintf(s.in, "Content-Length: %d\r\n\r\n%s", len(data), data); err != nil {
		s.t.Fatal(err)
	}
}

func (s *server) call(method string, params any) map[string]json.RawMessage {
	s.t.Helper()
	s.mu.Lock()
	s.nextID++
	id := s.nextID
	ch := make(chan map[string]json.RawMessage, 1)
	s.calls[id] = ch
	s.mu.Unlock()
	s.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case m := <-ch:
		return m
	case <-time.After(60 * time.Second):
		s.t.Fatalf("no answer to %s", method)
		return nil
	}
}

func (s *server) notify(method string, params any) {
	s.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

func (s *server) waitDiagnostics(uri string, version int) []diagnostic {
	s.t.Helper()
	deadline := time.After(120 * time.Second)
	for {
		select {
		case p := <-s.diags:
			if p.URI == uri && p.Version == version {
				return p.Diagnostics
			}
		case <-deadline:
			s.t.Fatalf("no diagnostics for %s at version %d", uri, version)
			return nil
		}
	}
}

// validateResult is what validate -o json says of one object.
type validateResult struct {
	Line     int       `json:"line"`
	Status   string    `json:"status"`
	Reason   string    `json:"reason"`
	Errors   []problem `json:"errors"`
	Warnings []problem `json:"warnings"`
}

type problem struct {
	Field, Type, Message string
	Line, Column         int
}

// expected is validate's report of a file as the lines a diagnostic
// should have: 0-based line, severity, code and message.
func expected(t *testing.T, file string, extra ...string) []string {
	t.Helper()
	args := append([]string{"validate", "-f", file, "--offline", "-o", "json"}, extra...)
	for _, d := range crdDirs() {
		args = append(args, "--crds", d)
	}
	r := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, args...)
	var report struct{ Results []validateResult }
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil {
		t.Fatalf("validate %s: exit %d, %v\n%s", file, r.Code, err, r.Stderr)
	}
	var out []string
	add := func(line int, sev, code, field, msg string) {
		if field != "" {
			msg = field + ": " + msg
		}
		out = append(out, fmt.Sprintf("%d %s %s %s", line-1, sev, code, msg))
	}
	for _, res := range report.Results {
		switch {
		case res.Status == "skipped":
			add(res.Line, "info", "Skipped", "", "not checked: "+res.Reason)
		case res.Status == "error" && len(res.Errors) == 0:
			add(res.Line, "error", "Error", "", "error: "+res.Reason)
		}
		for _, p := range res.Errors {
			l := p.Line
			if l == 0 {
				l = res.Line
			}
			add(l, "error", p.Type, p.Field, p.Message)
		}
		for _, p := range res.Warnings {
			l := p.Line
			if l == 0 {
				l = res.Line
			}
			add(l, "warning", p.Type, p.Field, p.Message)
		}
	}
	// A file's CRDs also get kubectl crd lint's findings, each at its
	// field (a file lint cannot read, having no CRD or a CRD that does
	// not decode, has none).
	if strings.Contains(string(mustRead(t, file)), "CustomResourceDefinition") {
		r := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "lint", "-f", file, "-o", "json")
		var lint struct {
			Findings []struct {
				Line                                 int
				Check, Severity, Field, Message, Fix string
			}
		}
		if r.Code < 2 {
			if err := json.Unmarshal([]byte(r.Stdout), &lint); err != nil {
				t.Fatalf("lint %s: exit %d, %v\n%s", file, r.Code, err, r.Stderr)
			}
		}
		for _, f := range lint.Findings {
			add(f.Line, f.Severity, "lint/"+f.Check, f.Field, f.Message+" (fix: "+f.Fix+")")
		}
	}
	sort.Strings(out)
	return out
}

func lines(ds []diagnostic) []string {
	out := []string{}
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%d %s %s %s", d.Range.Start.Line, map[int]string{1: "error", 2: "warning", 3: "info"}[d.Severity], d.Code, d.Message))
	}
	sort.Strings(out)
	return out
}

// testFiles are the files both are given: custom resources with CEL,
// unknown fields and lists, built-in kinds, CRD documents (valid and
// not), broken documents between good ones.
func testFiles(t *testing.T) []string {
	var files []string
	for _, pattern := range []string{"test/testdata/objects/*.yaml", "test/testdata/builtin/creates.yaml", "test/testdata/badcrds/*.yaml",
		"test/testdata/bad/*.yaml", "examples/objects/*/*.yaml", "test/testdata/crds/*.yaml"} {
		m, err := filepath.Glob(filepath.Join(repoRoot, pattern))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 15 {
		t.Fatalf("only %d test files", len(files))
	}
	return files
}

// TestDiagnosticsEqualValidate: every test file opened in the server gets
// exactly validate's findings (offline, the same --crds), and on its CRDs
// lint's.
func TestDiagnosticsEqualValidate(t *testing.T) {
	args := []string{"--offline"}
	for _, d := range crdDirs() {
		args = append(args, "--crds", d)
	}
	s := startServer(t, args...)
	s.call("initialize", map[string]any{"processId": nil, "rootUri": "file://" + repoRoot, "capabilities": map[string]any{}})
	s.notify("initialized", map[string]any{})
	total := 0
	for _, file := range testFiles(t) {
		text, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		uri := "file://" + file
		s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "yaml", "version": 1, "text": string(text)}})
		got := lines(s.waitDiagnostics(uri, 1))
		want := expected(t, file)
		total += len(want)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s:\nlsp:\n  %s\nvalidate:\n  %s", file, strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
	}
	if total < 30 {
		t.Errorf("only %d findings over the files: the comparison proves little", total)
	}
	t.Logf("%d findings, the same from lsp and validate", total)
	if m := s.call("shutdown", nil); m["error"] != nil {
		t.Errorf("shutdown: %s", m["error"])
	}
	s.notify("exit", nil)
	if err := s.cmd.Wait(); err != nil {
		t.Errorf("exit after shutdown: %v", err)
	}
}

// TestDiagnosticsWithPolicies: with the workspace setting policies, the
// diagnostics of a file are validate --policies' findings on it, the
// policies' denials among them.
func TestDiagnosticsWithPolicies(t *testing.T) {
	args := []string{"--offline"}
	for _, d := range crdDirs() {
		args = append(args, "--crds", d)
	}
	s := startServer(t, args...)
	s.call("initialize", map[string]any{"processId": nil, "rootUri": "file://" + repoRoot, "capabilities": map[string]any{},
		"initializationOptions": map[string]any{"policies": []string{"examples/policies"}}})
	s.notify("initialized", map[string]any{})
	file := filepath.Join(repoRoot, "examples", "objects", "valid", "crontabs.yaml")
	uri := "file://" + file
	s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "yaml", "version": 1, "text": string(mustRead(t, file))}})
	got := lines(s.waitDiagnostics(uri, 1))
	want := expected(t, file, "--policies", filepath.Join(repoRoot, "examples", "policies"))
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lsp:\n  %s\nvalidate --policies:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if !strings.Contains(strings.Join(got, "\n"), "denied request") {
		t.Errorf("no denial among the diagnostics: %v", got)
	}
	s.call("shutdown", nil)
	s.notify("exit", nil)
	_ = s.cmd.Wait()
}

// neovimProbe waits for the diagnostics of the file Neovim opened, asks
// for a hover, and writes what Neovim holds as JSON to $KCRD_OUT.
const neovimProbe = `
local ok = vim.wait(60000, function() return #vim.diagnostic.get(0) > 0 end, 50)
local diags = {}
for _, d in ipairs(vim.diagnostic.get(0)) do
  table.insert(diags, {lnum = d.lnum, col = d.col, end_col = d.end_col, severity = d.severity, message = d.message})
end
local hover = vim.lsp.buf_request_sync(0, "textDocument/hover",
  {textDocument = {uri = vim.uri_from_bufnr(0)}, position = {line = tonumber(os.getenv("KCRD_HOVER_LINE")), character = 4}}, 20000)
local hovered = ""
for _, r in pairs(hover or {}) do
  if r.result and r.result.contents then hovered = r.result.contents.value end
end
vim.fn.writefile({vim.fn.json_encode({ok = ok, diagnostics = diags, hover = hovered})}, os.getenv("KCRD_OUT"))
for _, c in ipairs(vim.lsp.get_active_clients()) do c.stop() end
vim.wait(5000, function() return #vim.lsp.get_active_clients() == 0 end, 50)
vim.cmd("qa!")
`

// readmeLua is the Neovim configuration the docs give (docs/lsp.md).
func readmeLua(t *testing.T) string {
	t.Helper()
	readme := string(mustRead(t, filepath.Join(repoRoot, "docs", "lsp.md")))
	_, after, ok := strings.Cut(readme, "Neovim (0.7's built-in client")
	if ok {
		_, after, ok = strings.Cut(after, "```lua\n")
	}
	lua, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 {
		t.Fatal("docs/lsp.md has no Neovim configuration")
	}
	return lua
}

// TestNeovim: Neovim, configured as docs/lsp.md says (kubectl-crd on PATH,
// the CRDs in crds/), opens the invalid example CronTabs; the diagnostics
// it holds are validate's, on the fields' lines, and a hover shows
// explain's documentation.
func TestNeovim(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("CI installs Neovim (.ci/run), but there is no nvim on PATH")
		}
		t.Skip("no nvim on PATH (Debian's neovim package; .ci/run installs it)")
	}
	dir := t.TempDir()
	initLua, probe := filepath.Join(dir, "init.lua"), filepath.Join(dir, "probe.lua")
	if err := os.WriteFile(initLua, []byte(readmeLua(t)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(probe, []byte(neovimProbe), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(repoRoot, "examples/crds"), filepath.Join(dir, "crds")); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(repoRoot, "examples/objects/invalid/crontabs.yaml")
	out := filepath.Join(dir, "out.json")
	hoverLine := 0
	for i, l := range strings.Split(string(mustRead(t, file)), "\n") {
		if strings.Contains(l, "replicas: 11") {
			hoverLine = i
		}
	}
	cmd := exec.Command(nvim, "--headless", "-n", "-i", "NONE", "-u", "NONE", "--cmd", "filetype on", "--cmd", "luafile "+initLua, "-c", "luafile "+probe, file)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+bin.Dir+string(os.PathListSeparator)+os.Getenv("PATH"), "KCRD_OUT="+out, "KCRD_HOVER_LINE="+strconv.Itoa(hoverLine), "HOME="+dir, "XDG_STATE_HOME="+dir, "XDG_DATA_HOME="+dir, "KUBECONFIG="+filepath.Join(dir, "none"))
	done := make(chan []byte, 1)
	go func() { b, _ := cmd.CombinedOutput(); done <- b }()
	select {
	case b := <-done:
		if len(b) > 0 {
			t.Logf("nvim printed: %s", b)
		}
	case <-time.After(3 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("nvim did not finish")
	}
	var got struct {
		OK          bool `json:"ok"`
		Diagnostics []struct {
			Lnum, Col, EndCol int `json:"-"`
			Message           string
			Severity          int
		} `json:"diagnostics"`
		Hover string `json:"hover"`
	}
	data := mustRead(t, out)
	if err := json.Unmarshal(data, &got); err != nil || !got.OK {
		t.Fatalf("Neovim got no diagnostics: %v\n%s", err, data)
	}
	var raw struct {
		Diagnostics []map[string]any `json:"diagnostics"`
	}
	_ = json.Unmarshal(data, &raw)
	var lines []string
	for _, d := range raw.Diagnostics {
		sev := map[float64]string{1: "error", 2: "warning", 3: "info"}[d["severity"].(float64)]
		lines = append(lines, fmt.Sprintf("%v %s", d["lnum"], sev)+" "+d["message"].(string))
	}
	sort.Strings(lines)
	want := expected(t, file)
	for i := range want { // validate's lines, without the code Neovim 0.7 does not keep at top level
		f := strings.SplitN(want[i], " ", 4)
		want[i] = f[0] + " " + f[1] + " " + f[3]
	}
	sort.Strings(want)
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("Neovim's diagnostics:\n  %s\nvalidate:\n  %s", strings.Join(lines, "\n  "), strings.Join(want, "\n  "))
	}
	if !strings.Contains(got.Hover, "**spec.replicas** `integer`") || !strings.Contains(got.Hover, "- maximum: `10`") {
		t.Errorf("Neovim's hover on replicas: %q", got.Hover)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cronTabs is a file of n CronTabs, 10 lines each, one of them invalid.
func cronTabs(n int) string {
	var b strings.Builder
	for i := range n {
		replicas := 3
		if i == n/2 {
			replicas = 11
		}
		fmt.Fprintf(&b, "---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: crontab-%d\n  labels: {app: jobs}\nspec:\n  cronSpec: \"*/5 * * * *\"\n  image: nginx:1.27\n  replicas: %d\n", i, replicas)
	}
	return b.String()
}

// BenchmarkEdit: an edit of a 500-line file in the editor (the binary over
// stdio, from didChange to publishDiagnostics; the validator built by the
// first check), alternating with kubectl crd validate of the same text
// from the command line (a process, the CRD read, the validator built):
// the median of each, and their ratio.
func BenchmarkEdit(b *testing.B) {
	dir := b.TempDir()
	file := filepath.Join(dir, "crontabs.yaml")
	text := cronTabs(50)
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		b.Fatal(err)
	}
	crds := filepath.Join(repoRoot, "examples/crds")
	s := startServer(b, "--offline", "--crds", crds)
	s.call("initialize", map[string]any{"processId": nil, "rootUri": "file://" + dir, "capabilities": map[string]any{}})
	s.notify("initialized", map[string]any{})
	uri := "file://" + file
	s.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "yaml", "version": 1, "text": text}})
	s.waitDiagnostics(uri, 1)
	var edits, runs []time.Duration
	for i := range b.N {
		v := i + 2
		start := time.Now()
		s.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": v},
			"contentChanges": []any{map[string]any{"text": strings.Replace(text, "crontab-7\n", fmt.Sprintf("crontab-7-%d\n", v), 1)}}})
		if d := s.waitDiagnostics(uri, v); len(d) != 1 {
			b.Fatalf("%d diagnostics", len(d))
		}
		edits = append(edits, time.Since(start))
		start = time.Now()
		cmd := exec.Command(filepath.Join(bin.Dir, "kubectl-crd"), "validate", "-f", file, "--offline", "--crds", crds, "--crd-cache-dir", filepath.Join(dir, "cache"))
		if err := cmd.Run(); err == nil {
			b.Fatal("validate found the file valid")
		}
		runs = append(runs, time.Since(start))
	}
	median := func(ds []time.Duration) time.Duration {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return ds[len(ds)/2]
	}
	e, r := median(edits), median(runs)
	b.ReportMetric(float64(e.Microseconds())/1000, "ms/edit")
	b.ReportMetric(float64(r.Microseconds())/1000, "ms/validate")
	b.ReportMetric(float64(r)/float64(e), "validate/edit")
}
