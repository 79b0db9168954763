package factory

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// TestWarnConcurrently: validate's workers and client-go's warning handler
// warn at the same time; each message is printed once, whole. (Run with
// -race, as CI does, to catch unsynchronised access.)
func TestWarnConcurrently(t *testing.T) {
	var errOut lockedBuffer
	f := New(genericiooptions.IOStreams{ErrOut: &errOut})
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 50 {
				f.Warn(fmt.Sprintf("message %d", (i+w)%10))
			}
		})
	}
	wg.Wait()
	for i := range 10 {
		if n := strings.Count(errOut.String(), fmt.Sprintf("Warning: message %d\n", i)); n != 1 {
			t.Errorf("message %d printed %d times:\n%s", i, n, errOut.String())
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
