package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// initializeParams are what the server reads of initialize's params: the
// workspace's folder (the first of workspaceFolders, else rootUri, else
// rootPath, as clients of each protocol version send it) and the
// settings.
type initializeParams struct {
	WorkspaceFolders []protocol.WorkspaceFolder `json:"workspaceFolders"`
	RootURI          protocol.DocumentURI       `json:"rootUri"`
	RootPath         string                     `json:"rootPath"`
	Options          any                        `json:"initializationOptions"`
	Capabilities     struct {
		Experimental map[string]any `json:"experimental"`
	} `json:"capabilities"`
}

func (s *Server) initialize(p initializeParams) (any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case len(p.WorkspaceFolders) > 0:
		s.root = filename(protocol.DocumentURI(p.WorkspaceFolders[0].URI))
	case p.RootURI != "":
		s.root = filename(p.RootURI)
	default:
		s.root = p.RootPath
	}
	if err := s.settings.merge(p.Options); err != nil {
		return nil, rpcError(jsonrpc2.InvalidParams, "initializationOptions: %v", err)
	}
	s.wantsStatus = p.Capabilities.Experimental[MethodStatus] == true
	return protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			TextDocumentSync: protocol.TextDocumentSyncOptions{OpenClose: true, Change: protocol.TextDocumentSyncKindFull,
				Save: &protocol.SaveOptions{}},
			HoverProvider:      true,
			CompletionProvider: &protocol.CompletionOptions{TriggerCharacters: []string{":"}},
		},
		ServerInfo: &protocol.ServerInfo{Name: "kubectl-crd", Version: s.opts.Version},
	}, nil
}

// configure takes new settings: the environment is made again and every
// open document checked again.
func (s *Server) configure(raw any) error {
	s.mu.Lock()
	next := s.settings
	err := next.merge(raw)
	var old *environment
	if err == nil {
		s.settings = next
		old, s.env = s.env, nil
	}
	s.mu.Unlock()
	if err != nil {
		return err
	}
	old.close()
	s.diag.all()
	return nil
}

// notify sends a notification; a failure (the client is gone) is logged.
func (s *Server) notify(method string, params any) {
	if err := s.conn.Notify(context.Background(), method, params); err != nil {
		s.log.Printf("%s: %v", method, err)
	}
}

// showMessage tells the user something in the editor's message area.
func (s *Server) showMessage(typ protocol.MessageType, msg string) {
	s.notify(protocol.MethodWindowShowMessage, &protocol.ShowMessageParams{Type: typ, Message: msg})
}
