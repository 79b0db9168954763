package startup

import (
	"runtime"
	"testing"
)

// The collector's part is tested on the built command (test/e2e's
// TestNoCollectionWhileStarting), where packages initialise as they do for
// users.
func TestMemoryProfilingOff(t *testing.T) {
	if runtime.MemProfileRate != 0 {
		t.Errorf("runtime.MemProfileRate = %d after start-up, want 0 (off)", runtime.MemProfileRate)
	}
}
