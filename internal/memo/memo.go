// Package memo computes a value once per key, for callers working
// concurrently: the first caller of a key computes it, the others wait for
// that answer.
package memo

import (
	"sync"
	"sync/atomic"
)

// Map holds the answers by key. The zero Map is ready to use.
type Map[K comparable, V any] struct {
	mu        sync.Mutex
	m         map[K]*entry[V]
	computing atomic.Int32 // keys whose answer is being computed
}

type entry[V any] struct {
	once sync.Once
	done atomic.Bool // v and err are set
	v    V
	err  error
}

// Get returns the answer for k, calling compute when k is new.
func (m *Map[K, V]) Get(k K, compute func() (V, error)) (V, error) {
	m.mu.Lock()
	if m.m == nil {
		m.m = map[K]*entry[V]{}
	}
	e := m.m[k]
	if e == nil {
		e = &entry[V]{}
		m.m[k] = e
		m.computing.Add(1)
	}
	m.mu.Unlock()
	e.once.Do(func() {
		defer m.computing.Add(-1)
		e.v, e.err = compute()
		e.done.Store(true)
	})
	return e.v, e.err
}

// Known returns k's answer when it has been computed without error;
// it neither computes nor waits.
func (m *Map[K, V]) Known(k K) (V, bool) {
	if e := m.entry(k); e != nil && e.done.Load() && e.err == nil {
		return e.v, true
	}
	var zero V
	return zero, false
}

// Busy tells whether k's answer is being computed now: Get would wait
// for it.
func (m *Map[K, V]) Busy(k K) bool {
	e := m.entry(k)
	return e != nil && !e.done.Load()
}

// Computing tells whether any answer is being computed now.
func (m *Map[K, V]) Computing() bool {
	return m.computing.Load() > 0
}

func (m *Map[K, V]) entry(k K) *entry[V] {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.m[k]
}

// Forget drops the answers of the keys drop says yes to: the next Get of
// such a key computes it again. A computation under way still answers the
// callers waiting for it.
func (m *Map[K, V]) Forget(drop func(K) bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k := range m.m {
		if drop(k) {
			delete(m.m, k)
		}
	}
}

// ForgetFailed drops the answers that were errors, so that they are asked
// again.
func (m *Map[K, V]) ForgetFailed() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, e := range m.m {
		if e.done.Load() && e.err != nil {
			delete(m.m, k)
		}
	}
}
