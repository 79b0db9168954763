package harness

import (
	"bytes"
	"os"
	"strconv"
	"sync"
	"time"
)

// WatchPeakRSS polls a running process's high-water mark of resident
// memory (VmHWM, which starts afresh at exec, unlike the rusage of a child
// forked from a large test process) until the returned function is
// called, and returns the last value seen, in bytes. The poll is every
// 5 ms, so a process that lives shorter than that may show 0.
func WatchPeakRSS(pid int) func() int64 {
	var mu sync.Mutex
	var peak int64
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		path := "/proc/" + strconv.Itoa(pid) + "/status"
		for {
			if v := vmHWM(path); v > 0 {
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return func() int64 {
		close(done)
		<-stopped
		mu.Lock()
		defer mu.Unlock()
		return peak
	}
}

func vmHWM(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, _ := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
