// Package parallel runs independent steps on every core.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls f(i) for every i from 0 to n-1 and returns when all calls
// have returned. Up to one goroutine per core each take the next i until
// none is left (a goroutine per call would grow a fresh stack for each);
// batch is the least number of calls worth a goroutine of its own, and
// fewer than that run on the caller's goroutine.
func Each(n, batch int, f func(i int)) {
	workers := min(runtime.GOMAXPROCS(0), n/max(batch, 1))
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
