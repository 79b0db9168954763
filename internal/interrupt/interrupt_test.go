package interrupt

import (
	"bytes"
	"fmt"
	"sync"
	"syscall"
	"testing"
)

// recorder keeps each Write it gets.
type recorder struct{ writes []string }

func (r *recorder) Write(p []byte) (int, error) {
	r.writes = append(r.writes, string(p))
	return len(p), nil
}

// TestLineWriter: only whole lines go out, the rest waits for its end or
// for Flush; after stop nothing goes out.
func TestLineWriter(t *testing.T) {
	r := &recorder{}
	l := NewLineWriter(r)
	for _, s := range []string{"ab", "c\nde", "f\ng\n", "h"} {
		if n, err := l.Write([]byte(s)); n != len(s) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", s, n, err)
		}
	}
	if got := fmt.Sprintf("%q", r.writes); got != `["abc\n" "def\ng\n"]` {
		t.Errorf("writes %s", got)
	}
	if err := l.Flush(); err != nil || r.writes[len(r.writes)-1] != "h" {
		t.Errorf("Flush: %v, writes %q", err, r.writes)
	}
	_, _ = l.Write([]byte("i\nj"))
	l.Stop()
	_, _ = l.Write([]byte("k\n"))
	_ = l.Flush()
	if got := fmt.Sprintf("%q", r.writes); got != `["abc\n" "def\ng\n" "h" "i\n"]` {
		t.Errorf("after stop: writes %s", got)
	}
}

// TestLineWriterConcurrently: lines written whole by several goroutines
// come out whole.
func TestLineWriterConcurrently(t *testing.T) {
	var out bytes.Buffer
	l := NewLineWriter(&out)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 500 {
				fmt.Fprintf(l, "goroutine %d line %d\n", g, i)
			}
		})
	}
	wg.Wait()
	lines := bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n"))
	if len(lines) != 4000 {
		t.Fatalf("%d lines, want 4000", len(lines))
	}
	for _, line := range lines {
		var g, i int
		if n, err := fmt.Sscanf(string(line), "goroutine %d line %d", &g, &i); n != 2 || err != nil {
			t.Fatalf("a torn line: %q", line)
		}
	}
}

func TestExitCode(t *testing.T) {
	if ExitCode(syscall.SIGINT) != 130 || ExitCode(syscall.SIGTERM) != 143 {
		t.Errorf("exit codes %d, %d; want 130, 143", ExitCode(syscall.SIGINT), ExitCode(syscall.SIGTERM))
	}
}
