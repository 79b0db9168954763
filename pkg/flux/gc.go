package flux

import (
	"os"
	"runtime/debug"
	"sync"
)

// renderGC is the garbage collector's target while Flux's objects are
// rendered. Flux's build parses kustomize's built-in OpenAPI schema
// afresh for every Kustomization (it resets kustomize's global schema,
// which a build can change, so that no build sees another's): tens of
// megabytes of garbage each time, with little live. At Go's default
// (100) the collector runs through most of that work; at 400 it runs a
// quarter as often, for a heap at most a few hundred megabytes larger
// (measured in docs/benchmarks.md). A GOGC the user sets is kept.
const renderGC = 400

var gc struct {
	sync.Mutex
	users int
	saved int
}

// raiseGC raises the collector's target for a render; the returned func
// restores it when the last render ends.
func raiseGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	gc.Lock()
	defer gc.Unlock()
	if gc.users == 0 {
		gc.saved = debug.SetGCPercent(renderGC)
	}
	gc.users++
	return func() {
		gc.Lock()
		defer gc.Unlock()
		if gc.users--; gc.users == 0 {
			debug.SetGCPercent(gc.saved)
		}
	}
}
