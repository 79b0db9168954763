// Package startup sets the Go runtime up for a short-lived command, before
// the heavy packages initialise:
//
//   - No garbage is collected while packages initialise, unless the user
//     set GOGC. Their init functions build about 6 MB of tables (API
//     schemes, metrics, OpenAPI models) that all stay live, so a collection
//     then only spends time: about a third of a 20 ms start. cmd.Run sets
//     the collector's pace for the command that follows.
//   - Memory profiling is off: nothing reads the profile, and recording it
//     (a stack walk every 512 KiB allocated, into a table that is mapped
//     page by page) was 2% of a validate run's time.
//
// It imports nothing heavy, so that it is initialised early: Go initialises
// packages in the order of their import paths, each once its imports are.
package startup

import (
	"os"
	"runtime"
	"runtime/debug"
)

func init() {
	runtime.MemProfileRate = 0
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(-1)
	}
}
