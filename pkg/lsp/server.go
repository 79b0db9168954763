// Package lsp is kubectl crd's language server: validate's findings as
// diagnostics, explain's documentation on hover, and the schema's fields
// as completions, for the YAML files open in an editor. It is a front end
// of pkg/validate, pkg/explain and pkg/catalog: the checks are validate's
// own pipeline, kept warm between edits (validate.Cache).
//
// The protocol's types are go.lsp.dev/protocol's; its connection and
// cancellation go.lsp.dev/jsonrpc2's. Requests are answered one at a time
// in order; diagnostics are made on a goroutine of their own, so that a
// slow check (a cluster that answers slowly, a large CRD's first
// validator) never holds up a hover or a completion, and an edit made
// while a document is checked is checked next, once.
package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"runtime/debug"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Options configure a Server.
type Options struct {
	// Setup makes the environment of the checks for the settings; it is
	// called again when the settings change, or the CRD files do.
	Setup Setup
	// Settings are the defaults, from the command line; the client's
	// initializationOptions and workspace/didChangeConfiguration override
	// them.
	Settings Settings
	// Log receives the server's own log (never the protocol's stdout).
	Log io.Writer
	// Version is the server's version, told to the client.
	Version string
}

// Server is a language server on one connection.
type Server struct {
	opts Options
	log  *log.Logger
	conn jsonrpc2.Conn

	mu       sync.Mutex
	docs     map[protocol.DocumentURI]*document
	settings Settings
	root     string // the workspace's folder, for relative paths in settings
	shutdown bool
	env      *environment
	// wantsStatus: the client asked for MethodStatus notifications.
	wantsStatus bool

	diag *diagnoser
}

// Serve runs a server on in and out until the client exits or in ends.
// It returns nil after shutdown and exit, an error otherwise (as the
// protocol says: exit without shutdown is a failure).
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	s := &Server{opts: opts, log: log.New(opts.Log, "kubectl-crd lsp: ", log.LstdFlags), docs: map[protocol.DocumentURI]*document{}, settings: opts.Settings}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	exited := make(chan error, 1)
	st := newStream(in, out, func() error { return nil }, func(err error) {
		s.log.Print(err)
		go s.showMessage(protocol.MessageTypeError, "kubectl crd lsp: "+err.Error())
	})
	s.conn = jsonrpc2.NewConn(st)
	s.diag = newDiagnoser(s)
	go s.diag.run(ctx)
	handler, cancelRequest := jsonrpc2.CancelHandler(jsonrpc2.AsyncHandler(s.handle(exited, s.dispatch)))
	// inFlight counts the messages read and not yet answered: when the
	// input ends, those before it (shutdown, exit) are still answered.
	var inFlight sync.WaitGroup
	s.conn.Go(ctx, func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		if req.Method() == protocol.MethodCancelRequest {
			var p struct {
				ID json.RawMessage `json:"id"`
			}
			if err := json.Unmarshal(req.Params(), &p); err == nil {
				var id jsonrpc2.ID
				if id.UnmarshalJSON(p.ID) == nil {
					cancelRequest(id)
				}
			}
			return nil
		}
		inFlight.Add(1)
		return handler(ctx, func(ctx context.Context, result any, err error) error {
			defer inFlight.Done()
			return reply(ctx, result, err)
		}, req)
	})
	select {
	case err := <-exited:
		_ = s.conn.Close()
		return err
	case <-s.conn.Done():
		waited := make(chan struct{})
		go func() { inFlight.Wait(); close(waited) }()
		select {
		case <-waited:
		case <-time.After(5 * time.Second):
		}
		select {
		case err := <-exited:
			return err
		default:
		}
		if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled) {
			return err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if !s.shutdown {
			return errors.New("the client went away without shutdown")
		}
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// handle answers every request and notification, one at a time. A panic
// in a handler becomes the request's error; the server goes on.
func (s *Server) handle(exited chan<- error, dispatch func(context.Context, jsonrpc2.Request, chan<- error) (any, error)) jsonrpc2.Handler {
	return func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) (err error) {
		replied := false
		once := func(ctx context.Context, result any, err error) error {
			replied = true
			return reply(ctx, result, err)
		}
		defer func() {
			if p := recover(); p != nil {
				s.log.Printf("panic answering %s: %v\n%s", req.Method(), p, debug.Stack())
				if !replied {
					err = once(ctx, nil, rpcError(jsonrpc2.InternalError, "kubectl crd lsp failed answering %s: %v", req.Method(), p))
				}
			}
		}()
		result, herr := dispatch(ctx, req, exited)
		if _, isCall := req.(*jsonrpc2.Call); isCall {
			if herr == nil && ctx.Err() != nil {
				herr = protocol.ErrRequestCancelled
			}
			return once(ctx, result, herr)
		}
		if herr != nil {
			s.log.Printf("%s: %v", req.Method(), herr)
		}
		// A notification has no answer, but AsyncHandler starts the next
		// message only once this one has "replied".
		return once(ctx, nil, nil)
	}
}

// rpcError is an error with a JSON-RPC code and its own message
// (jsonrpc2 replies with the message of a wrapped code error alone).
func rpcError(code jsonrpc2.Code, format string, args ...any) error {
	return jsonrpc2.NewError(code, fmt.Sprintf(format, args...))
}

func (s *Server) dispatch(ctx context.Context, req jsonrpc2.Request, exited chan<- error) (any, error) {
	params := req.Params()
	decode := func(v any) error {
		if len(params) == 0 {
			return rpcError(jsonrpc2.InvalidParams, "%s needs params", req.Method())
		}
		if err := json.Unmarshal(params, v); err != nil {
			return rpcError(jsonrpc2.InvalidParams, "%s: %v", req.Method(), err)
		}
		return nil
	}
	switch req.Method() {
	case protocol.MethodInitialize:
		var p initializeParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return s.initialize(p)
	case protocol.MethodInitialized:
		return nil, nil
	case protocol.MethodShutdown:
		s.mu.Lock()
		s.shutdown = true
		s.mu.Unlock()
		return nil, nil
	case protocol.MethodExit:
		s.mu.Lock()
		down := s.shutdown
		s.mu.Unlock()
		var err error
		if !down {
			err = errors.New("exit without shutdown")
		}
		select {
		case exited <- err:
		default: // a second exit
		}
		return nil, nil
	case protocol.MethodTextDocumentDidOpen:
		var p protocol.DidOpenTextDocumentParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		s.open(p.TextDocument.URI, p.TextDocument.Version, p.TextDocument.Text)
		return nil, nil
	case protocol.MethodTextDocumentDidChange:
		var p protocol.DidChangeTextDocumentParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return nil, s.change(p)
	case protocol.MethodTextDocumentDidClose:
		var p protocol.DidCloseTextDocumentParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		s.close(ctx, p.TextDocument.URI)
		return nil, nil
	case protocol.MethodTextDocumentDidSave, protocol.MethodWorkspaceDidChangeWatchedFiles:
		s.diag.all() // a CRD file may have changed on disk
		return nil, nil
	case protocol.MethodWorkspaceDidChangeConfiguration:
		var p protocol.DidChangeConfigurationParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return nil, s.configure(p.Settings)
	case protocol.MethodTextDocumentHover:
		var p protocol.HoverParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return s.hover(p.TextDocument.URI, p.Position), nil
	case protocol.MethodTextDocumentCompletion:
		var p protocol.CompletionParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return s.complete(p.TextDocument.URI, p.Position), nil
	case MethodTypeAt:
		var p protocol.TextDocumentPositionParams
		if err := decode(&p); err != nil {
			return nil, err
		}
		return s.typeAt(p.TextDocument.URI, p.Position), nil
	}
	if _, isCall := req.(*jsonrpc2.Call); isCall {
		return nil, rpcError(jsonrpc2.MethodNotFound, "%s is not a method kubectl crd lsp answers", req.Method())
	}
	return nil, nil // notifications the server does not use
}
