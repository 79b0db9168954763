package memo

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

func TestOncePerKey(t *testing.T) {
	var m Map[string, int]
	var calls atomic.Int32
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := []string{"a", "b"}[i%2]
			v, err := m.Get(k, func() (int, error) { calls.Add(1); return len(k) * 7, nil })
			if v != 7 || err != nil {
				t.Errorf("%s: %d, %v", k, v, err)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 2 {
		t.Errorf("%d computations for 2 keys", calls.Load())
	}
	boom := errors.New("boom")
	if _, err := m.Get("c", func() (int, error) { return 0, boom }); err != boom {
		t.Errorf("error %v", err)
	}
	if _, err := m.Get("c", func() (int, error) { return 1, nil }); err != boom {
		t.Errorf("an error is an answer too: %v", err)
	}
}
