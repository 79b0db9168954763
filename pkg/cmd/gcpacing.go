package cmd

import (
	"os"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// The collector's pacing of a one-shot command. Validation keeps the
// server's validators live (tens of MiB per CRD version used) while each
// document allocates and drops its decoded objects; at Go's default
// (GOGC=100) the collector marks the whole live heap every time the heap
// grows by its live size, which is a third of the CPU time of a large run.
// A higher percentage collects less often; the soft limit bounds what that
// costs in memory. Measured with test/bench/validate.sh (README,
// benchmarks).
const (
	oneShotGCPercent   = 400
	oneShotMemoryLimit = 400 << 20
)

// paceGC sets the collector's pacing for the command about to run, unless
// the user set GOGC or GOMEMLIMIT (theirs win, each on its own). The
// language server keeps Go's defaults: it lives as long as the editor,
// and between edits its heap should stay near its live size rather than
// grow to five times it.
func paceGC(c *cobra.Command) {
	if c.Name() == "lsp" {
		return
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(oneShotGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(oneShotMemoryLimit)
	}
}
