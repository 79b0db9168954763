package migrate

import (
	"context"
	"fmt"
	"io"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// All migrates the CRDs named in turn, with opts; a CRD after one that
// was stopped (opts.Stop) is not started. Where progress is set, each
// CRD's progress is written there on one line, cleared at its end (a
// terminal). failed says some object failed, or storedVersions could not
// be pruned.
func (m *Migrator) All(ctx context.Context, names []string, opts Options, progress io.Writer) (results []*Result, failed bool, err error) {
	for _, name := range names {
		if opts.Stop != nil && opts.Stop.Err() != nil {
			break
		}
		o := opts
		if progress != nil {
			o.Progress = Progress(progress, name, time.Now())
		}
		r, err := m.Migrate(ctx, name, o)
		if progress != nil {
			fmt.Fprint(progress, "\r\033[K")
		}
		if apierrors.IsForbidden(err) {
			return nil, false, fmt.Errorf("%s: %w (migrate needs get on customresourcedefinitions, list and update on %s, update on customresourcedefinitions/status)", name, err, name)
		}
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", name, err)
		}
		failed = failed || len(r.Failed) > 0 || (r.NotPruned != "" && r.DryRun == "")
		results = append(results, r)
	}
	return results, failed, nil
}
