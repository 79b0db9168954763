// Package migrate moves the objects of a CRD to its storage version and
// then prunes status.storedVersions, as Kubernetes' documentation
// prescribes ("Upgrade existing objects to a new stored version"): every
// object is written back unchanged, so that the server stores it at the
// storage version (and elides the write where it is stored so already),
// then the CRD's storedVersions becomes the storage version alone, through
// the status subresource. It writes nothing else.
package migrate

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/convert"
	"github.com/kubectl-crd/kubectl-crd/pkg/pagedlist"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// Options say how to migrate.
type Options struct {
	// ChunkSize is the size of a list page.
	ChunkSize int64
	// Concurrency is how many objects are written at once.
	Concurrency int
	// DryRun is "" (migrate), "client" (plan only: read, write nothing) or
	// "server" (send every update with dryRun=All: the server converts,
	// validates and admits each object without storing it).
	DryRun string
	// Progress, when set, is told how many objects are done of how many.
	Progress func(done, total int)
	// Stop, when done (the user interrupted), ends the migration before
	// its next write: the writes already sent finish (ctx ends those),
	// storedVersions is left as it was, and the Result says Interrupted.
	// Nil: never.
	Stop context.Context
}

// errStopped ends the listing when Options.Stop is done.
var errStopped = errors.New("stopped")

// ErrCRDChanged is why storedVersions is not pruned when the CRD changed
// during the migration.
var ErrCRDChanged = errors.New("the CustomResourceDefinition changed during the migration")

// Migrator migrates the objects of CRDs of one cluster.
type Migrator struct {
	CRDs    apiextensionsclient.CustomResourceDefinitionInterface
	Objects dynamic.Interface
	// retryDelay is the first wait before retrying a write the server
	// could not take (doubled each time, or what Retry-After says).
	retryDelay time.Duration
}

// Migrate moves every object of the CRD name to its storage version and,
// when none failed and the CRD did not change meanwhile, prunes
// storedVersions to the storage version. An error means the migration
// could not run (nothing is pruned); a Result with failures or NotPruned
// means it ran but left storedVersions as it was.
func (m *Migrator) Migrate(ctx context.Context, name string, opts Options) (*Result, error) {
	crd, err := m.CRDs.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	storage, err := apihelpers.GetCRDStorageVersion(crd)
	if err != nil {
		return nil, err
	}
	r := &Result{CRD: name, StorageVersion: storage, StoredVersionsBefore: crd.Status.StoredVersions,
		StoredVersionsAfter: crd.Status.StoredVersions, DryRun: opts.DryRun, Failed: []Failure{}}
	stop := opts.Stop
	if stop == nil {
		stop = context.Background()
	}
	interrupted := func() *Result {
		r.Interrupted = true
		r.NotPruned = "interrupted"
		return r
	}
	gvr := schema.GroupVersionResource{Group: crd.Spec.Group, Version: storage, Resource: crd.Spec.Names.Plural}
	ri := m.Objects.Resource(gvr)

	// Before any write: every object can be read at the storage version
	// (reading converts it), checked as convert --check checks it.
	var others []string
	for _, v := range crd.Status.StoredVersions {
		if v != storage {
			others = append(others, v)
		}
	}
	// Nothing is written yet: Stop ends the reads at once.
	checkCtx, cancelCheck := context.WithCancel(ctx)
	defer context.AfterFunc(stop, cancelCheck)()
	check, err := convert.CheckStored(checkCtx, m.Objects, crd, convert.StoredOptions{Versions: []string{storage}, Also: others,
		PageSize: opts.ChunkSize, Concurrency: opts.Concurrency})
	cancelCheck()
	if stop.Err() != nil {
		return interrupted(), nil
	}
	if err != nil {
		return nil, &ConversionError{Err: err}
	}
	if len(check.Failures) > 0 || check.Incomplete != "" {
		return nil, &ConversionError{Stored: check}
	}
	r.Objects, r.Namespaces = check.Objects, check.Namespaces
	if opts.DryRun == "client" {
		r.NotPruned = "dry run"
		return r, nil
	}
	r.Namespaces = nil

	done := map[string]bool{} // objects already written, should the list start again
	var mu sync.Mutex
	err = pagedlist.Each(ctx, ri, opts.ChunkSize, func(page []unstructured.Unstructured) error {
		if stop.Err() != nil {
			return errStopped
		}
		var todo []unstructured.Unstructured
		for _, o := range page {
			if !done[pagedlist.Key(&o)] {
				todo = append(todo, o)
			}
		}
		parallel.On(opts.Concurrency, len(todo), func(i int) {
			if stop.Err() != nil {
				return // no new write
			}
			outcome, failure := m.rewrite(ctx, ri, &todo[i], opts.DryRun == "server")
			mu.Lock()
			defer mu.Unlock()
			done[pagedlist.Key(&todo[i])] = true
			switch outcome {
			case rewritten:
				r.Rewritten++
			case accepted:
				r.Accepted++
			case unchanged:
				r.Unchanged++
			case gone:
				r.Gone++
			default:
				r.Failed = append(r.Failed, failure)
			}
			if opts.Progress != nil {
				opts.Progress(len(done), r.Objects)
			}
		})
		return nil
	})
	if errors.Is(err, errStopped) || (err == nil && stop.Err() != nil) {
		sort.Slice(r.Failed, func(i, j int) bool { return failureKey(r.Failed[i]) < failureKey(r.Failed[j]) })
		return interrupted(), nil
	}
	if err != nil {
		return r, err
	}
	sort.Slice(r.Failed, func(i, j int) bool { return failureKey(r.Failed[i]) < failureKey(r.Failed[j]) })
	switch {
	case opts.DryRun != "":
		r.NotPruned = "dry run"
	case len(r.Failed) > 0:
		r.NotPruned = report.Plural(len(r.Failed), "object", "objects") + " could not be rewritten"
	default:
		after, err := m.prune(ctx, crd)
		if errors.Is(err, ErrCRDChanged) {
			r.NotPruned = err.Error()
			return r, nil
		}
		if err != nil {
			return r, err
		}
		r.StoredVersionsAfter = after
	}
	return r, nil
}
