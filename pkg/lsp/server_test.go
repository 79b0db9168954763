package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

const crontabs = "../../examples/crds"

func readFile(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// span is a diagnostic's place and text, for comparisons.
func span(d protocol.Diagnostic) string {
	r := d.Range
	return strings.Join([]string{itoa(int(r.Start.Line)), itoa(int(r.Start.Character)), itoa(int(r.End.Line)), itoa(int(r.End.Character)),
		severity(d.Severity), d.Message}, " ")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func severity(s protocol.DiagnosticSeverity) string {
	return map[protocol.DiagnosticSeverity]string{1: "error", 2: "warning", 3: "info", 4: "hint"}[s]
}

// TestDiagnostics: an invalid CronTab's findings on the value (or key)
// they are about; a broken document between two good ones gets a syntax
// diagnostic at its line and the others keep theirs; fixing it clears it.
func TestDiagnostics(t *testing.T) {
	c := startClient(t, Options{})
	c.initialize(map[string]any{"crds": []string{abs(t, crontabs)}})
	uri := "file:///tmp/crontab.yaml"
	text := `apiVersion: stable.example.com/v1
kind: CronTab
metadata:
  name: bad
spec:
  cronSpec: "every night"
  image: nginx
  replicas: 11
  colour: blue
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: [broken
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ok
data:
  a: b
`
	c.open(uri, text)
	got := c.diagnostics(uri, 1)
	var spans []string
	for _, d := range got {
		spans = append(spans, span(d))
		if d.Source != "kubectl-crd" || d.Code == nil {
			t.Errorf("source %q, code %v", d.Source, d.Code)
		}
	}
	want := []string{
		`5 12 5 25 error spec.cronSpec: Invalid value: "every night": spec.cronSpec in body should match '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'`,
		`7 12 7 14 error spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`,
		`8 2 8 8 error spec.colour: unknown field "spec.colour"`,
	}
	joined := strings.Join(spans, "\n")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("no diagnostic %q in\n%s", w, joined)
		}
	}
	if !strings.Contains(joined, "12 ") || !strings.Contains(joined, "error") || len(got) != 4 {
		t.Errorf("the broken document's diagnostic is missing, or others appeared:\n%s", joined)
	}

	fixed := strings.Replace(strings.Replace(strings.Replace(text, "{name: [broken", "{name: fine}", 1), "every night", "0 * * * *", 1), "  colour: blue\n", "", 1)
	c.change(uri, 2, strings.Replace(fixed, "replicas: 11", "replicas: 3", 1))
	if got := c.diagnostics(uri, 2); len(got) != 0 {
		t.Errorf("fixed: %v", got)
	}
	if err := c.shutdown(); err != nil {
		t.Errorf("shutdown and exit: %v", err)
	}
}

func abs(t testing.TB, path string) string {
	t.Helper()
	p, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestHoverAndCompletion: explain's documentation and constraints on a
// key, the CRD on kind, the schema's missing fields (required first) and
// a field's enum values.
func TestHoverAndCompletion(t *testing.T) {
	c := startClient(t, Options{Settings: Settings{CRDs: []string{abs(t, crontabs)}}})
	c.initialize(nil)
	uri := "file:///tmp/c.yaml"
	text := "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: x\nspec:\n  replicas: 3\n  \n"
	c.open(uri, text)
	c.diagnostics(uri, 1) // the check has found the CRD

	hover := func(line, char int) string {
		m := c.call(protocol.MethodTextDocumentHover, map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": char}})
		var h *protocol.Hover
		if m.Error != nil || json.Unmarshal(m.Result, &h) != nil || h == nil {
			return ""
		}
		return h.Contents.Value
	}
	if h := hover(5, 4); !strings.Contains(h, "**spec.replicas** `integer`") || !strings.Contains(h, "- maximum: `10`") {
		t.Errorf("hover on replicas: %q", h)
	}
	if h := hover(1, 2); !strings.Contains(h, "**CronTab** (stable.example.com)") || !strings.Contains(h, "v1 (storage)") {
		t.Errorf("hover on kind: %q", h)
	}
	if h := hover(3, 3); h != "" {
		t.Errorf("hover on metadata.name (ObjectMeta, no schema here): %q", h)
	}

	complete := func(line, char int) []protocol.CompletionItem {
		m := c.call(protocol.MethodTextDocumentCompletion, map[string]any{"textDocument": map[string]any{"uri": uri}, "position": map[string]any{"line": line, "character": char}})
		var l protocol.CompletionList
		if m.Error != nil || json.Unmarshal(m.Result, &l) != nil {
			t.Fatalf("completion: %+v", m)
		}
		return l.Items
	}
	items := complete(6, 2)
	var labels []string
	for _, it := range items {
		labels = append(labels, it.Label)
	}
	if got := strings.Join(labels, ","); !strings.Contains(got, "cronSpec") || !strings.Contains(got, "image") || strings.Contains(got, "replicas") {
		t.Errorf("fields of spec: %s", got)
	}
	if items := complete(0, 12); len(items) == 0 || items[0].Label != "stable.example.com/v1" {
		t.Errorf("apiVersion values: %+v", items)
	}
}

// TestDocumentReadWhileChanged: the diagnoser reads a document's lines
// with no lock while edits replace it, copying what the last check found.
// Under -race this fails if reading the lines writes to the document.
func TestDocumentReadWhileChanged(t *testing.T) {
	s := &Server{log: discardLogger(), docs: map[protocol.DocumentURI]*document{}}
	s.diag = newDiagnoser(s)
	uri := protocol.DocumentURI("file:///tmp/changed.yaml")
	s.open(uri, 1, "a\nb\n")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 2000 {
			if lines := s.doc(uri).textLines(); len(lines) != 3 || lines[1] != "b" {
				t.Errorf("lines: %q", lines)
				return
			}
		}
	}()
	for v := int32(2); v < 2000; v++ {
		change := protocol.DidChangeTextDocumentParams{TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri}, Version: v},
			ContentChanges: []protocol.TextDocumentContentChangeEvent{{Text: fmt.Sprintf("a%d\nb\n", v)}}}
		if err := s.change(change); err != nil {
			t.Fatal(err)
		}
	}
	<-done
	if d := s.doc(uri); d.version != 1999 || d.textLines()[0] != "a1999" {
		t.Errorf("last version %d: %q", d.version, d.textLines())
	}
}

// TestRobustness: a message that is not JSON-RPC, an unknown method and a
// request before its document is open are answered or skipped, and the
// server goes on; a client that goes away ends it with an error.
func TestRobustness(t *testing.T) {
	c := startClient(t, Options{})
	c.initialize(nil)
	c.raw([]byte("this is not JSON"))
	shown := func(want string) {
		t.Helper()
		select {
		case m := <-c.shown:
			if !strings.Contains(m.Message, want) {
				t.Errorf("told %q, want %q", m.Message, want)
			}
		case <-time.After(30 * time.Second):
			t.Errorf("the user was not told %q", want)
		}
	}
	shown("a message that is not JSON-RPC was skipped")
	if m := c.call("kubectl-crd/nothing", map[string]any{}); m.Error == nil || m.Error.Code != int(jsonrpc2.MethodNotFound) {
		t.Errorf("unknown method: %+v", m)
	}
	if m := c.call(protocol.MethodTextDocumentHover, map[string]any{"textDocument": map[string]any{"uri": "file:///not/open.yaml"}, "position": map[string]any{}}); m.Error != nil {
		t.Errorf("hover in a file not open: %+v", m.Error)
	}
	if m := c.call(protocol.MethodTextDocumentHover, "not params"); m.Error == nil || m.Error.Code != int(jsonrpc2.InvalidParams) {
		t.Errorf("bad params: %+v", m)
	}
	c.notify(protocol.MethodCancelRequest, map[string]any{"id": 12345})
	uri := "file:///tmp/big.yaml"
	c.open(uri, "a: "+strings.Repeat("x", MaxEditorFile))
	if d := c.diagnostics(uri, 1); len(d) != 1 || !strings.Contains(d[0].Message, "kubectl crd checks files of up to") {
		t.Errorf("a file too large: %+v", d)
	}
	c.open("file:///tmp/huge.yaml", "a: "+strings.Repeat("x", MaxMessage))
	shown("bytes was skipped: the limit is")
	c.open("file:///tmp/bin.yaml", "a: \x00\x01")
	if d := c.diagnostics("file:///tmp/bin.yaml", 1); len(d) != 1 || !strings.Contains(d[0].Message, "NUL") {
		t.Errorf("a binary file: %+v", d)
	}
	c.w.Close()
	if err := <-c.done; err == nil {
		t.Error("the client went away without shutdown: Serve returned nil")
	}
}

// TestPanicIsAnError: a handler that panics answers its request with an
// internal error, and the next request is answered.
func TestPanicIsAnError(t *testing.T) {
	s := &Server{log: discardLogger()}
	calls := 0
	h := s.handle(make(chan error, 1), func(context.Context, jsonrpc2.Request, chan<- error) (any, error) {
		calls++
		if calls == 1 {
			panic("boom")
		}
		return "fine", nil
	})
	req, _ := jsonrpc2.NewCall(jsonrpc2.NewNumberID(1), "textDocument/hover", nil)
	var got []error
	reply := func(_ context.Context, _ any, err error) error { got = append(got, err); return nil }
	_ = h(context.Background(), reply, req)
	_ = h(context.Background(), reply, req)
	var rpc *jsonrpc2.Error
	if len(got) != 2 || !errors.As(got[0], &rpc) || rpc.Code != jsonrpc2.InternalError || !strings.Contains(rpc.Message, "boom") || got[1] != nil {
		t.Errorf("answers: %v", got)
	}
}

func discardLogger() *log.Logger { return log.New(io.Discard, "", 0) }

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

// TestMemoryIsFlat: 10,000 edits of a file (every tenth one checked
// before the next is sent) leave the server's live heap where 1,000 left
// it (2,000 and 200 with the race detector, which is slower).
func TestMemoryIsFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("10,000 edits")
	}
	c := startClient(t, Options{Settings: Settings{CRDs: []string{abs(t, crontabs)}}})
	c.initialize(nil)
	uri := "file:///tmp/flat.yaml"
	text := cronTabs(50)
	c.open(uri, text)
	c.diagnostics(uri, 1)
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	edits := 10_000
	if raceDetector {
		edits = 2_000
	}
	var at1000 uint64
	for v := 2; v <= edits+1; v++ {
		// Each edit changes a name, as typing does.
		c.change(uri, v, strings.Replace(text, "crontab-7\n", fmt.Sprintf("crontab-7-%d\n", v), 1))
		if v%10 == 1 {
			if d := c.diagnostics(uri, v); len(d) != 1 {
				t.Fatalf("edit %d: %d diagnostics", v, len(d))
			}
		}
		if v == edits/10+1 {
			at1000 = heap()
		}
	}
	at10000 := heap()
	t.Logf("live heap after %d edits %.1f MiB, after %d %.1f MiB", edits/10, float64(at1000)/(1<<20), edits, float64(at10000)/(1<<20))
	if at10000 > at1000+at1000/4 {
		t.Errorf("the heap grew from %d to %d bytes over %d edits", at1000, at10000, edits-edits/10)
	}
}

// TestCRDFileChanges: a CRD file changed on disk is read again and the
// open documents checked again, with no edit; new settings (another CRD
// directory) likewise.
func TestCRDFileChanges(t *testing.T) {
	dir := t.TempDir()
	crd := readFile(t, filepath.Join(crontabs, "crontab.yaml"))
	if !strings.Contains(crd, "maximum: 10") {
		t.Fatal("the CronTab CRD changed: this test needs its maximum: 10")
	}
	path := filepath.Join(dir, "crontab.yaml")
	if err := os.WriteFile(path, []byte(crd), 0o644); err != nil {
		t.Fatal(err)
	}
	c := startClient(t, Options{})
	c.initialize(map[string]any{"kubectl-crd": map[string]any{"crds": []string{dir}}})
	uri := "file:///tmp/r.yaml"
	c.open(uri, "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: x\nspec:\n  replicas: 11\n")
	if d := c.diagnostics(uri, 1); len(d) != 1 {
		t.Fatalf("replicas 11 against maximum 10: %v", d)
	}
	time.Sleep(1100 * time.Millisecond) // a modification time the check can tell apart
	if err := os.WriteFile(path, []byte(strings.Replace(crd, "maximum: 10", "maximum: 20", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if d := c.diagnostics(uri, 1); len(d) != 0 {
		t.Errorf("after the CRD allowed 20: %v", d)
	}
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"crds": []string{abs(t, crontabs)}}})
	if d := c.diagnostics(uri, 1); len(d) != 1 {
		t.Errorf("after the settings named the CRDs with maximum 10: %v", d)
	}
}

// TestCannotCheck: a source of CRDs that cannot answer (an unreachable
// cluster) is one diagnostic per file and one message to the user, and
// the server keeps answering.
func TestCannotCheck(t *testing.T) {
	c := startClient(t, Options{Setup: func(Settings) (*validate.Environment, error) {
		return &validate.Environment{Catalog: catalog.Unavailable(errors.New("dial tcp 10.0.0.1:6443: i/o timeout"), nil)}, nil
	}})
	c.initialize(nil)
	for i, uri := range []string{"file:///tmp/a.yaml", "file:///tmp/b.yaml"} {
		c.open(uri, "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: x\n")
		d := c.diagnostics(uri, 1)
		if len(d) != 1 || !strings.Contains(d[0].Message, "cannot check this file: finding the CustomResourceDefinition of CronTab.stable.example.com") ||
			!strings.Contains(d[0].Message, "i/o timeout") {
			t.Errorf("%s: %v", uri, d)
		}
		if i == 0 {
			select {
			case m := <-c.shown:
				if !strings.Contains(m.Message, "i/o timeout") {
					t.Errorf("told %q", m.Message)
				}
			case <-time.After(10 * time.Second):
				t.Error("the user was not told")
			}
		}
	}
	select {
	case m := <-c.shown:
		t.Errorf("told twice: %q", m.Message)
	default:
	}
	if m := c.call(protocol.MethodTextDocumentHover, map[string]any{"textDocument": map[string]any{"uri": "file:///tmp/a.yaml"}, "position": map[string]any{"line": 1}}); m.Error != nil {
		t.Errorf("hover: %v", m.Error)
	}
}

// TestCancelled: a request whose context is cancelled (by $/cancelRequest)
// is answered with RequestCancelled.
func TestCancelled(t *testing.T) {
	s := &Server{log: discardLogger()}
	h := s.handle(make(chan error, 1), func(context.Context, jsonrpc2.Request, chan<- error) (any, error) { return "late", nil })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	req, _ := jsonrpc2.NewCall(jsonrpc2.NewNumberID(7), "textDocument/completion", nil)
	var got error
	_ = h(ctx, func(_ context.Context, _ any, err error) error { got = err; return nil }, req)
	var rpc *jsonrpc2.Error
	if !errors.As(got, &rpc) || rpc.Code != protocol.CodeRequestCancelled {
		t.Errorf("answer: %v", got)
	}
}

// TestReplacedEnvironmentClosesAdmission: when the settings change (and
// when the CRD files change), the environment made for the old ones is
// replaced and its admission chain closed: its plugins' informers do not
// run on for the rest of the session.
func TestReplacedEnvironmentClosesAdmission(t *testing.T) {
	dir := t.TempDir()
	crd := filepath.Join(dir, "crontab.yaml")
	if err := os.WriteFile(crd, []byte(readFile(t, filepath.Join(crontabs, "crontab.yaml"))), 0o644); err != nil {
		t.Fatal(err)
	}
	chains := make(chan *policies.Chain, 10)
	c := startClient(t, Options{Setup: func(s Settings) (*validate.Environment, error) {
		files, err := catalog.ReadFiles(s.CRDs, nil, nil)
		if err != nil {
			return nil, err
		}
		env, err := validate.NewEnvironment(validate.Setting{Catalog: catalog.New(files, nil)})
		if err != nil {
			return nil, err
		}
		a, err := env.SetUpAdmission(context.Background(), validate.AdmissionSetting{Policies: []string{"../../examples/policies"}, User: policies.User()})
		if err != nil {
			return nil, err
		}
		env.Options.Admission = a.Chain
		chains <- a.Chain
		return env, nil
	}})
	c.initialize(map[string]any{"kubectl-crd": map[string]any{"crds": []string{dir}}})
	uri := "file:///tmp/r.yaml"
	doc := "apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: x\n"
	c.open(uri, doc)
	c.diagnostics(uri, 1)
	first := <-chains
	closed := func(ch *policies.Chain) bool {
		select {
		case <-ch.Done():
			return true
		case <-time.After(10 * time.Second):
			return false
		}
	}
	c.notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"crds": []string{dir}, "offline": true}})
	c.change(uri, 2, doc+"spec: {}\n")
	c.diagnostics(uri, 2)
	if !closed(first) {
		t.Fatal("the environment replaced by new settings kept its admission chain running")
	}
	second := <-chains
	time.Sleep(1100 * time.Millisecond) // a modification time the check can tell apart
	if err := os.WriteFile(crd, []byte(readFile(t, crd)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.change(uri, 3, doc)
	c.diagnostics(uri, 3)
	if !closed(second) {
		t.Fatal("the environment replaced after its CRD files changed kept its admission chain running")
	}
	select {
	case third := <-chains:
		select {
		case <-third.Done():
			t.Error("the environment in use has its admission chain closed")
		default:
		}
	default:
		t.Error("no environment was made after the CRD files changed")
	}
}
