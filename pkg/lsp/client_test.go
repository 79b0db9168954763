package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"go.lsp.dev/protocol"
)

// client speaks to a Server over pipes, as an editor does over stdio.
type client struct {
	t     testing.TB
	w     io.WriteCloser
	mu    sync.Mutex
	next  int
	calls map[int]chan message
	diags chan protocol.PublishDiagnosticsParams
	shown chan protocol.ShowMessageParams
	// statuses are the MethodStatus notifications.
	statuses chan Status
	done     chan error
}

type message struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// testSetup is a Setup over the CRD files given in the settings, offline.
func testSetup(s Settings) (*validate.Environment, error) {
	var source catalog.Source
	if len(s.CRDs) > 0 {
		files, err := catalog.ReadFiles(s.CRDs, nil, nil)
		if err != nil {
			return nil, err
		}
		source = files
	}
	builtIn, err := builtin.New(nil, nil, nil)
	if err != nil {
		return nil, err
	}
	return &validate.Environment{Catalog: catalog.New(source, nil), Options: validate.Options{Namespace: "default", BuiltIn: builtIn}}, nil
}

// startClient starts a Server with opts and a client of it.
func startClient(t testing.TB, opts Options) *client {
	t.Helper()
	if opts.Setup == nil {
		opts.Setup = testSetup
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &client{t: t, w: inW, calls: map[int]chan message{}, diags: make(chan protocol.PublishDiagnosticsParams, 100),
		shown: make(chan protocol.ShowMessageParams, 100), statuses: make(chan Status, 100), done: make(chan error, 1)}
	go func() {
		err := Serve(context.Background(), inR, outW, opts)
		outW.Close()
		c.done <- err
	}()
	go c.read(outR)
	t.Cleanup(func() { inW.Close() })
	return c
}

func (c *client) read(r io.Reader) {
	br := bufio.NewReader(r)
	for {
		length := 0
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
				length, _ = strconv.Atoi(v)
			}
		}
		body := make([]byte, length)
		if _, err := io.ReadFull(br, body); err != nil {
			return
		}
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			c.t.Errorf("the server wrote %q: %v", body, err)
			return
		}
		switch {
		case m.ID != nil && m.Method == "":
			c.mu.Lock()
			ch := c.calls[*m.ID]
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		case m.Method == protocol.MethodTextDocumentPublishDiagnostics:
			var p protocol.PublishDiagnosticsParams
			_ = json.Unmarshal(m.Params, &p)
			c.diags <- p
		case m.Method == MethodStatus:
			var st Status
			_ = json.Unmarshal(m.Params, &st)
			c.statuses <- st
		case m.Method == protocol.MethodWindowShowMessage:
			var p protocol.ShowMessageParams
			_ = json.Unmarshal(m.Params, &p)
			c.shown <- p
		}
	}
}

// send writes one framed message.
func (c *client) send(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.raw(data)
}

func (c *client) raw(data []byte) {
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(data), data); err != nil {
		c.t.Fatal(err)
	}
}

// call sends a request and waits for its answer.
func (c *client) call(method string, params any) message {
	c.t.Helper()
	c.mu.Lock()
	c.next++
	id := c.next
	ch := make(chan message, 1)
	c.calls[id] = ch
	c.mu.Unlock()
	c.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	select {
	case m := <-ch:
		return m
	case <-time.After(30 * time.Second):
		c.t.Fatalf("no answer to %s", method)
		return message{}
	}
}

func (c *client) notify(method string, params any) {
	c.send(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// diagnostics waits for the diagnostics of uri at version.
func (c *client) diagnostics(uri string, version int) []protocol.Diagnostic {
	c.t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case p := <-c.diags:
			if string(p.URI) == uri && int(p.Version) == version {
				return p.Diagnostics
			}
		case <-deadline:
			c.t.Fatalf("no diagnostics of %s at version %d", uri, version)
			return nil
		}
	}
}

func (c *client) initialize(options any) {
	c.t.Helper()
	c.initializeWith(map[string]any{}, options)
}

// initializeWith initializes with the client capabilities given.
func (c *client) initializeWith(capabilities map[string]any, options any) {
	c.t.Helper()
	m := c.call(protocol.MethodInitialize, map[string]any{"processId": 1, "rootUri": "file:///", "capabilities": capabilities,
		"initializationOptions": options})
	if m.Error != nil {
		c.t.Fatalf("initialize: %v", m.Error.Message)
	}
	c.notify(protocol.MethodInitialized, map[string]any{})
}

func (c *client) open(uri, text string) {
	c.notify(protocol.MethodTextDocumentDidOpen, map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "yaml", "version": 1, "text": text}})
}

func (c *client) change(uri string, version int, text string) {
	c.notify(protocol.MethodTextDocumentDidChange, map[string]any{"textDocument": map[string]any{"uri": uri, "version": version},
		"contentChanges": []any{map[string]any{"text": text}}})
}

// shutdown ends the session as a client does, and returns Serve's error.
func (c *client) shutdown() error {
	c.t.Helper()
	if m := c.call(protocol.MethodShutdown, nil); m.Error != nil {
		c.t.Fatalf("shutdown: %v", m.Error.Message)
	}
	c.notify(protocol.MethodExit, nil)
	select {
	case err := <-c.done:
		return err
	case <-time.After(10 * time.Second):
		c.t.Fatal("the server did not end after exit")
		return nil
	}
}
