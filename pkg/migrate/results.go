package migrate

import (
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/convert"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
)

// Result is what a migration did (or, dry, would do).
type Result struct {
	CRD                  string   `json:"crd"`
	StorageVersion       string   `json:"storageVersion"`
	StoredVersionsBefore []string `json:"storedVersionsBefore"`
	StoredVersionsAfter  []string `json:"storedVersionsAfter"`
	DryRun               string   `json:"dryRun,omitempty"`
	Objects              int      `json:"objects"`
	// Rewritten: stored anew (the update's resourceVersion differs from
	// the one sent).
	Rewritten int `json:"rewritten"`
	// Accepted: with --dry-run=server, taken by the server without being
	// stored (a dry run cannot tell rewritten from unchanged).
	Accepted int `json:"accepted,omitempty"`
	// Unchanged: already at the storage version (same resourceVersion).
	Unchanged int       `json:"unchanged"`
	Gone      int       `json:"gone"`
	Failed    []Failure `json:"failed"`
	// Namespaces counts the objects by namespace ("" for cluster-scoped
	// ones): the plan of --dry-run=client.
	Namespaces map[string]int `json:"namespaces,omitempty"`
	// NotPruned says why storedVersions was left as it was, when it was.
	NotPruned string `json:"notPruned,omitempty"`
	// Interrupted: Stop ended the migration; running it again finishes
	// the job (objects at the storage version are written back
	// unchanged).
	Interrupted bool `json:"interrupted,omitempty"`
}

// Failure is an object the server refused to rewrite.
type Failure struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Message   string `json:"message"`
}

// ConversionError is a failure to read the objects at the storage version
// before anything was written: the CRD's conversion is broken (Stored
// names the objects), or the list failed (Err).
type ConversionError struct {
	Err    error
	Stored *convert.Stored
}

func (e *ConversionError) Error() string {
	const prefix = "the objects cannot be read at the storage version, so nothing was written"
	if e.Stored == nil {
		return fmt.Sprintf("%s: %v", prefix, e.Err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d of %s fail (kubectl crd convert TYPE --check reads them at every version):", prefix, len(e.Stored.Failures), report.Plural(e.Stored.Objects, "object", "objects"))
	for _, f := range e.Stored.Failures {
		name := f.Name
		if f.Namespace != "" {
			name = f.Namespace + "/" + f.Name
		}
		fmt.Fprintf(&b, "\n  %s: %s", name, f.Message)
	}
	if e.Stored.Incomplete != "" {
		fmt.Fprintf(&b, "\n  %s", e.Stored.Incomplete)
	}
	return b.String()
}

func (e *ConversionError) Unwrap() error { return e.Err }

func failureKey(f Failure) string { return f.Namespace + "/" + f.Name }
