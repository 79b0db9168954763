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

	"go.lsp.dev/jsonrpc2"
)

// MaxMessage is the largest message read: a message larger than this (a
// file much larger than MaxEditorFile) is not read into memory, its bytes
// are skipped, and the user is told.
const MaxMessage = MaxEditorFile + MaxEditorFile/2

// stream frames JSON-RPC messages with Content-Length headers, as LSP
// does. Unlike jsonrpc2's own, a message that is not JSON-RPC, or is over
// MaxMessage, is reported to onBad and skipped: one bad message does not
// end the connection. Only a broken frame (a header that cannot be read)
// does, as nothing after it can be found.
type stream struct {
	in    *bufio.Reader
	out   io.Writer
	close func() error
	onBad func(error)

	writeMu sync.Mutex
}

func newStream(in io.Reader, out io.Writer, close func() error, onBad func(error)) *stream {
	return &stream{in: bufio.NewReaderSize(in, 64<<10), out: out, close: close, onBad: onBad}
}

func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		length, err := s.header()
		if err != nil {
			return nil, 0, err
		}
		if length > MaxMessage {
			if _, err := io.CopyN(io.Discard, s.in, length); err != nil {
				return nil, 0, err
			}
			s.onBad(fmt.Errorf("a message of %d bytes was skipped: the limit is %d bytes", length, MaxMessage))
			continue
		}
		data := make([]byte, length)
		if _, err := io.ReadFull(s.in, data); err != nil {
			return nil, 0, err
		}
		msg, err := jsonrpc2.DecodeMessage(data)
		if err != nil {
			s.onBad(fmt.Errorf("a message that is not JSON-RPC was skipped: %v", err))
			continue
		}
		return msg, length, nil
	}
}

// header reads a message's headers and returns its Content-Length.
func (s *stream) header() (int64, error) {
	length := int64(-1)
	for {
		line, err := s.in.ReadString('\n')
		if err != nil {
			if err == io.EOF && line == "" {
				return 0, io.EOF
			}
			return 0, fmt.Errorf("reading a header: %w", err)
		}
		line = strings.TrimSpace(line)
		if line == "" {
			if length < 0 {
				return 0, fmt.Errorf("a message without Content-Length")
			}
			return length, nil
		}
		name, value, ok := strings.Cut(line, ":")
		if !ok {
			return 0, fmt.Errorf("not a header: %q", line)
		}
		if strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			if length, err = strconv.ParseInt(strings.TrimSpace(value), 10, 64); err != nil || length < 0 {
				return 0, fmt.Errorf("Content-Length %q", value)
			}
		}
	}
}

func (s *stream) Write(_ context.Context, msg jsonrpc2.Message) (int64, error) {
	data, err := json.Marshal(msg)
	if err != nil {
		return 0, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	n, err := fmt.Fprintf(s.out, "Content-Length: %d\r\n\r\n%s", len(data), data)
	return int64(n), err
}

func (s *stream) Close() error { return s.close() }
