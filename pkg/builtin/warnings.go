package builtin

import (
	"context"
	"slices"
	"sync"

	"k8s.io/apiserver/pkg/warning"
)

// RecordWarnings gives ctx a recorder of the server's warnings (what
// warning.AddWarning adds): the request's.
func RecordWarnings(ctx context.Context) (context.Context, *Warnings) {
	w := &Warnings{}
	return warning.WithWarningRecorder(ctx, w), w
}

// Warnings records the server's warnings for one request, each once.
type Warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *Warnings) AddWarning(_, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !slices.Contains(w.seen, text) {
		w.seen = append(w.seen, text)
	}
}

// List is the warnings, in the order recorded.
func (w *Warnings) List() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen
}
