// Package interrupt turns SIGINT and SIGTERM into an orderly end of a
// command line program: its output stopped between two lines, its
// cleanups run, and the exit status a shell gives a command a signal
// ended.
package interrupt

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Handler turns SIGINT and SIGTERM into an orderly end. By default the
// process ends at once, after the last complete line of its output (no
// half-written line) and the factory's cleanups, with 128 + the signal's
// number, as a shell reports a command the signal ended (130 for Ctrl-C).
// A verb that must finish what it started (migrate's writes in flight)
// takes the signals over with Take; get --watch leaves them to kubectl's
// own handler (LeaveToKubectl).
type Handler struct {
	out      *LineWriter
	cleanup  func()
	signals  chan os.Signal
	mu       sync.Mutex
	handler  func(os.Signal)
	stopOnce sync.Once
}

// Handle starts listening for the signals; Stop ends that.
func Handle(out *LineWriter, cleanup func()) *Handler {
	in := &Handler{out: out, cleanup: cleanup, signals: make(chan os.Signal, 2)}
	signal.Notify(in.signals, os.Interrupt, syscall.SIGTERM)
	go in.loop()
	return in
}

func (in *Handler) loop() {
	for sig := range in.signals {
		in.mu.Lock()
		h := in.handler
		in.mu.Unlock()
		if h != nil {
			h(sig)
			continue
		}
		in.out.Stop()
		in.cleanup()
		os.Exit(ExitCode(sig))
	}
}

// LeaveToKubectl is for kubectl's code that ends the process itself on
// these signals (get --watch exits with 1, as kubectl get --watch does):
// the output stops at a whole line and kubectl's handler ends the
// process, or this one a moment later if kubectl's was not yet listening.
func (in *Handler) LeaveToKubectl() {
	in.Take(func(os.Signal) {
		in.out.Stop()
		in.cleanup()
		time.AfterFunc(time.Second, func() { os.Exit(1) })
	})
}

// Take makes h receive the signals instead of the default end.
func (in *Handler) Take(h func(os.Signal)) {
	in.mu.Lock()
	in.handler = h
	in.mu.Unlock()
}

// Stop stops listening.
func (in *Handler) Stop() {
	in.stopOnce.Do(func() {
		signal.Stop(in.signals)
		close(in.signals)
	})
}

// ExitCode is 128 + the signal's number.
func ExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// LineWriter passes on complete lines only, keeping a line's beginning
// until its end comes (or Flush): an interrupt then ends the output
// between two lines. Writes may come from several goroutines.
type LineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	tail    []byte
	stopped bool
}

func (l *LineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return len(p), nil // the process is ending
	}
	i := bytes.LastIndexByte(p, '\n')
	if i < 0 {
		l.tail = append(l.tail, p...)
		return len(p), nil
	}
	var err error
	if len(l.tail) > 0 {
		l.tail = append(l.tail, p[:i+1]...)
		_, err = l.w.Write(l.tail)
	} else {
		_, err = l.w.Write(p[:i+1])
	}
	l.tail = append(l.tail[:0], p[i+1:]...)
	if err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is kept of an unfinished line (the run's end).
func (l *LineWriter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped || len(l.tail) == 0 {
		return nil
	}
	_, err := l.w.Write(l.tail)
	l.tail = l.tail[:0]
	return err
}

// Stop drops what is kept and writes nothing more, once the write under
// way (if any) is done.
func (l *LineWriter) Stop() {
	l.mu.Lock()
	l.stopped = true
	l.tail = nil
	l.mu.Unlock()
}

// Fd is the descriptor of the writer beneath (for terminal checks).
func (l *LineWriter) Fd() uintptr {
	if f, ok := l.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}

// NewLineWriter makes a LineWriter writing to w.
func NewLineWriter(w io.Writer) *LineWriter { return &LineWriter{w: w} }

// InTwoSteps takes the signals over for work that must finish what it
// started: the first signal calls first and ends stop (start nothing
// new), a second one ends ctx too (end what is under way). signalled
// returns the first signal, nil while there was none. With no handler
// (h nil), the contexts end with parent alone.
func (in *Handler) InTwoSteps(parent context.Context, first func()) (ctx, stop context.Context, signalled func() os.Signal, release func()) {
	ctx, cancel := context.WithCancel(parent)
	stop, stopNew := context.WithCancel(ctx)
	var got atomic.Value // os.Signal
	if in != nil {
		in.Take(func(sig os.Signal) {
			if got.CompareAndSwap(nil, sig) {
				first()
				stopNew()
				return
			}
			cancel()
		})
	}
	signalled = func() os.Signal {
		sig, _ := got.Load().(os.Signal)
		return sig
	}
	return ctx, stop, signalled, func() { stopNew(); cancel() }
}
