// Package parallel runs independent steps on several goroutines.
package parallel

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Each calls f(i) for every i from 0 to n-1 on every core and returns when
// all calls have returned. batch is the least number of calls worth a
// goroutine of its own; fewer than that run on the caller's goroutine.
func Each(n, batch int, f func(i int)) {
	On(min(runtime.GOMAXPROCS(0), n/max(batch, 1)), n, f)
}

// On calls f(i) for every i from 0 to n-1 on up to workers goroutines,
// each taking the next i until none is left (a goroutine per call would
// grow a fresh stack for each), and returns when all calls have returned.
func On(workers, n int, f func(i int)) {
	if workers <= 1 {
		for i := range n {
			f(i)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < n; i = int(next.Add(1) - 1) {
				f(i)
			}
		})
	}
	wg.Wait()
}
