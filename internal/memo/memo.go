// Package memo computes a value once per key, for callers working
// concurrently: the first caller of a key computes it, the others wait for
// that answer.
package memo

import "sync"

// Map holds the answers by key. The zero Map is ready to use.
type Map[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]*entry[V]
}

type entry[V any] struct {
	once sync.Once
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
	}
	m.mu.Unlock()
	e.once.Do(func() { e.v, e.err = compute() })
	return e.v, e.err
}
