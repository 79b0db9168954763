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

func TestKnownAndBusy(t *testing.T) {
	var m Map[string, int]
	if _, ok := m.Known("a"); ok || m.Busy("a") {
		t.Fatal("a new key is known or busy")
	}
	started, finish := make(chan struct{}), make(chan struct{})
	go m.Get("a", func() (int, error) { close(started); <-finish; return 1, nil })
	<-started
	if _, ok := m.Known("a"); ok || !m.Busy("a") || !m.Computing() {
		t.Error("a key being computed: known, or not busy, or nothing computing")
	}
	close(finish)
	if v, err := m.Get("a", nil); v != 1 || err != nil {
		t.Fatalf("%d, %v", v, err)
	}
	if m.Computing() {
		t.Error("computing once every answer is known")
	}
	if v, ok := m.Known("a"); !ok || v != 1 || m.Busy("a") {
		t.Errorf("a computed key: known %v (%d), busy %v", ok, v, m.Busy("a"))
	}
	m.Get("b", func() (int, error) { return 0, errors.New("boom") })
	if _, ok := m.Known("b"); ok || m.Busy("b") {
		t.Error("a key whose answer is an error: known, or busy")
	}
}

func TestForget(t *testing.T) {
	var m Map[string, int]
	calls := 0
	get := func(k string, fail bool) (int, error) {
		return m.Get(k, func() (int, error) {
			calls++
			if fail {
				return 0, errors.New("no answer")
			}
			return len(k), nil
		})
	}
	_, _ = get("a", false)
	_, _ = get("bb", false)
	_, _ = get("ccc", true)
	m.ForgetFailed()
	if v, err := get("ccc", false); err != nil || v != 3 || calls != 4 {
		t.Errorf("a failed answer is asked again: %d %v, %d calls", v, err, calls)
	}
	if _, err := get("ccc", true); err != nil || calls != 4 {
		t.Errorf("a good answer is kept: %v, %d calls", err, calls)
	}
	m.Forget(func(k string) bool { return k == "a" })
	_, _ = get("a", false)
	_, _ = get("bb", false)
	if calls != 5 {
		t.Errorf("only the forgotten key is computed again: %d calls", calls)
	}
}
