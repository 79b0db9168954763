// Package initgc stops the garbage collector while the program's packages
// initialise, unless the user set GOGC. Their init functions build about
// 6 MB of tables (API schemes, metrics, OpenAPI models) that all stay live,
// so a collection then only spends time: about a third of a 20 ms start.
// cmd.Run sets the collector's pace for the command that follows.
//
// It imports nothing heavy, so that it is initialised early: Go initialises
// packages in the order of their import paths, each once its imports are.
package initgc

import (
	"os"
	"runtime/debug"
)

func init() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(-1)
	}
}
