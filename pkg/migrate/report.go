package migrate

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	"sigs.k8s.io/yaml"
)

// Write writes the results of a run: as text, or json or yaml (one CRD's
// result as itself, several as a list).
func Write(w io.Writer, results []*Result, format string) error {
	var doc any = results
	if len(results) == 1 {
		doc = results[0]
	}
	switch format {
	case "json":
		return report.WriteJSON(w, doc)
	case "yaml":
		b, err := yaml.Marshal(doc)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	var b strings.Builder
	for _, r := range results {
		writeText(&b, r)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeText(b *strings.Builder, r *Result) {
	if r.DryRun == "client" {
		fmt.Fprintf(b, "%s: %s to write back at %s (dry run: nothing written)\n", r.CRD, report.Plural(r.Objects, "object", "objects"), r.StorageVersion)
		var namespaces []string
		for ns := range r.Namespaces {
			namespaces = append(namespaces, ns)
		}
		sort.Strings(namespaces)
		for _, ns := range namespaces {
			name := ns
			if name == "" {
				name = "(cluster-scoped)"
			}
			fmt.Fprintf(b, "  %s: %d\n", name, r.Namespaces[ns])
		}
		fmt.Fprintf(b, "  storedVersions: %v, then %v\n", r.StoredVersionsBefore, []string{r.StorageVersion})
		return
	}
	objects := report.Plural(r.Objects, "object", "objects")
	if r.DryRun == "server" {
		fmt.Fprintf(b, "%s: %s sent to the server at %s (dry run: nothing written): %d accepted, %d gone, %d would fail\n",
			r.CRD, objects, r.StorageVersion, r.Accepted, r.Gone, len(r.Failed))
	} else if r.Interrupted {
		fmt.Fprintf(b, "%s: interrupted, %d of %s done at %s: %d rewritten, %d unchanged, %d gone, %d failed\n",
			r.CRD, r.Rewritten+r.Unchanged+r.Gone+len(r.Failed), objects, r.StorageVersion, r.Rewritten, r.Unchanged, r.Gone, len(r.Failed))
	} else {
		fmt.Fprintf(b, "%s: %s migrated to %s: %d rewritten, %d unchanged, %d gone, %d failed\n",
			r.CRD, objects, r.StorageVersion, r.Rewritten, r.Unchanged, r.Gone, len(r.Failed))
	}
	for _, f := range r.Failed {
		name := f.Name
		if f.Namespace != "" {
			name = f.Namespace + "/" + f.Name
		}
		fmt.Fprintf(b, "  failed %s: %s\n", name, f.Message)
	}
	if r.Interrupted {
		fmt.Fprintf(b, "  storedVersions %v left as it was; run it again to finish\n", r.StoredVersionsBefore)
	} else if r.NotPruned != "" {
		fmt.Fprintf(b, "  storedVersions %v left as it was: %s\n", r.StoredVersionsBefore, r.NotPruned)
	} else {
		fmt.Fprintf(b, "  storedVersions %v is now %v\n", r.StoredVersionsBefore, r.StoredVersionsAfter)
	}
}

// Progress writes a line on a terminal: done/total, rate, time left; it
// is called with each object done, and writes at most five times a
// second.
func Progress(w io.Writer, name string, start time.Time) func(done, total int) {
	last := time.Time{}
	return func(done, total int) {
		now := time.Now()
		if now.Sub(last) < 200*time.Millisecond && done < total {
			return
		}
		last = now
		elapsed := now.Sub(start).Seconds()
		rate := float64(done) / max(elapsed, 0.001)
		left := time.Duration(float64(total-done)/max(rate, 0.001)) * time.Second
		fmt.Fprintf(w, "\r\033[K%s: %d/%d objects, %.0f/s, %v left", name, done, total, rate, left.Round(time.Second))
	}
}
