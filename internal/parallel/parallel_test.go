package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

func TestEachCallsEveryIndexOnce(t *testing.T) {
	for _, c := range []struct{ n, batch int }{{0, 1}, {1, 1}, {2, 1}, {5, 64}, {1000, 1}, {1000, 64}, {1000, 0}} {
		calls := make([]atomic.Int32, c.n)
		Each(c.n, c.batch, func(i int) { calls[i].Add(1) })
		for i := range calls {
			if got := calls[i].Load(); got != 1 {
				t.Errorf("n=%d batch=%d: f(%d) called %d times", c.n, c.batch, i, got)
			}
		}
	}
}

// With more than one core, a long run of calls is shared by goroutines
// other than the caller's; a short one stays on the caller's.
func TestEachSharesLongRunsOnly(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one core")
	}
	goroutines := func(n, batch int) int {
		var mu sync.Mutex
		seen := map[uint64]bool{}
		Each(n, batch, func(int) {
			mu.Lock()
			seen[goroutineID()] = true
			mu.Unlock()
			runtime.Gosched()
		})
		return len(seen)
	}
	if got := goroutines(10, 64); got != 1 {
		t.Errorf("10 calls in batches of 64: %d goroutines, want the caller's alone", got)
	}
	if got := goroutines(10000, 1); got < 2 {
		t.Errorf("10,000 calls: %d goroutine, want more than one", got)
	}
}

// goroutineID reads the running goroutine's number from its stack header.
func goroutineID() uint64 {
	var buf [32]byte
	b := buf[:runtime.Stack(buf[:], false)]
	var id uint64
	for _, c := range b[len("goroutine "):] {
		if c < '0' || c > '9' {
			break
		}
		id = id*10 + uint64(c-'0')
	}
	return id
}
