package cmd

import (
	"math"
	"runtime/debug"
	"testing"

	"github.com/spf13/cobra"
)

// current reads the collector's percentage and limit without changing
// them.
func current() (int, int64) {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p, debug.SetMemoryLimit(-1)
}

func TestGCPacing(t *testing.T) {
	p, l := current()
	t.Cleanup(func() { debug.SetGCPercent(p); debug.SetMemoryLimit(l) })
	reset := func() { debug.SetGCPercent(100); debug.SetMemoryLimit(math.MaxInt64) }

	reset()
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	paceGC(&cobra.Command{Use: "validate"})
	if p, l := current(); p != oneShotGCPercent || l != oneShotMemoryLimit {
		t.Errorf("validate: GC percent %d, limit %d; want %d and %d", p, l, oneShotGCPercent, oneShotMemoryLimit)
	}

	reset()
	paceGC(&cobra.Command{Use: "lsp"})
	if p, l := current(); p != 100 || l != math.MaxInt64 {
		t.Errorf("lsp: GC percent %d, limit %d; want Go's defaults", p, l)
	}

	reset()
	t.Setenv("GOGC", "150")
	paceGC(&cobra.Command{Use: "validate"})
	if p, l := current(); p != 100 || l != oneShotMemoryLimit {
		t.Errorf("GOGC set: GC percent %d, limit %d; the user's percentage (read by the runtime at start) must stay", p, l)
	}

	reset()
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "1GiB")
	paceGC(&cobra.Command{Use: "validate"})
	if p, l := current(); p != oneShotGCPercent || l != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set: GC percent %d, limit %d; the user's limit must stay", p, l)
	}
}
