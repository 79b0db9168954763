package cmd

import (
	"bytes"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// interrupts turns SIGINT and SIGTERM into an orderly end. By default the
// process ends at once, after the last complete line of its output (no
// half-written line) and the factory's cleanups, with 128 + the signal's
// number, as a shell reports a command the signal ended (130 for Ctrl-C).
// A verb that must finish what it started (migrate's writes in flight)
// takes the signals over with take; get --watch leaves them to kubectl's
// own handler (leaveToKubectl).
type interrupts struct {
	out      *lineWriter
	cleanup  func()
	signals  chan os.Signal
	mu       sync.Mutex
	handler  func(os.Signal)
	stopOnce sync.Once
}

// handleInterrupts starts listening for the signals; stop ends that.
func handleInterrupts(out *lineWriter, cleanup func()) *interrupts {
	in := &interrupts{out: out, cleanup: cleanup, signals: make(chan os.Signal, 2)}
	signal.Notify(in.signals, os.Interrupt, syscall.SIGTERM)
	go in.loop()
	return in
}

func (in *interrupts) loop() {
	for sig := range in.signals {
		in.mu.Lock()
		h := in.handler
		in.mu.Unlock()
		if h != nil {
			h(sig)
			continue
		}
		in.out.stop()
		in.cleanup()
		os.Exit(exitCode(sig))
	}
}

// leaveToKubectl is for kubectl's code that ends the process itself on
// these signals (get --watch exits with 1, as kubectl get --watch does):
// the output stops at a whole line and kubectl's handler ends the
// process, or this one a moment later if kubectl's was not yet listening.
func (in *interrupts) leaveToKubectl() {
	in.take(func(os.Signal) {
		in.out.stop()
		in.cleanup()
		time.AfterFunc(time.Second, func() { os.Exit(1) })
	})
}

// take makes h receive the signals instead of the default end.
func (in *interrupts) take(h func(os.Signal)) {
	in.mu.Lock()
	in.handler = h
	in.mu.Unlock()
}

// stop stops listening.
func (in *interrupts) stop() {
	in.stopOnce.Do(func() {
		signal.Stop(in.signals)
		close(in.signals)
	})
}

// exitCode is 128 + the signal's number.
func exitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}

// lineWriter passes on complete lines only, keeping a line's beginning
// until its end comes (or Flush): an interrupt then ends the output
// between two lines. Writes may come from several goroutines.
type lineWriter struct {
	mu      sync.Mutex
	w       io.Writer
	tail    []byte
	stopped bool
}

func (l *lineWriter) Write(p []byte) (int, error) {
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
func (l *lineWriter) Flush() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped || len(l.tail) == 0 {
		return nil
	}
	_, err := l.w.Write(l.tail)
	l.tail = l.tail[:0]
	return err
}

// stop drops what is kept and writes nothing more, once the write under
// way (if any) is done.
func (l *lineWriter) stop() {
	l.mu.Lock()
	l.stopped = true
	l.tail = nil
	l.mu.Unlock()
}

// Fd is the descriptor of the writer beneath (for terminal checks).
func (l *lineWriter) Fd() uintptr {
	if f, ok := l.w.(interface{ Fd() uintptr }); ok {
		return f.Fd()
	}
	return ^uintptr(0)
}
