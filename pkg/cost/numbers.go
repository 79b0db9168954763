package cost

import (
	"fmt"
	"math"
	"strings"
)

// Number writes n with thousands separated, as every output says a cost.
func Number(n uint64) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Share is cost as a percentage of limit, as every output says it: with
// one decimal, whatever its size ("<0.1%" for what is less).
func Share(cost, limit uint64) string {
	p := 100 * float64(cost) / float64(limit)
	switch {
	case p > 10000:
		return "over 100x"
	case cost > 0 && p < 0.05:
		return "<0.1%"
	}
	return fmt.Sprintf("%.1f%%", p)
}

func runs(n uint64) string {
	if n == ^uint64(0) {
		return "unbounded"
	}
	return Number(n)
}

// mul is a * b, at most math.MaxUint64 (the server's overflow guard).
func mul(a, b uint64) uint64 {
	if a == 0 || b == 0 {
		return 0
	}
	if a > math.MaxUint64/b {
		return math.MaxUint64
	}
	return a * b
}

func add(a, b uint64) uint64 {
	if math.MaxUint64-a < b {
		return math.MaxUint64
	}
	return a + b
}
