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
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/convert"
	"github.com/kubectl-crd/kubectl-crd/pkg/pagedlist"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// errStopped ends the listing when Options.Stop is done.
var errStopped = errors.New("stopped")

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

type outcome int

const (
	rewritten outcome = iota
	accepted
	unchanged
	gone
	failed
)

// attempts bounds how often one object's write is tried.
const attempts = 8

// rewrite sends an object back unchanged: a conflict (someone else wrote
// it) reads it again and retries, a server that cannot take the write now
// (429, 5xx, timeouts) is retried after the wait it asks for (or a
// growing one), a refusal is the object's failure.
func (m *Migrator) rewrite(ctx context.Context, ri dynamic.NamespaceableResourceInterface, obj *unstructured.Unstructured, dry bool) (outcome, Failure) {
	client := dynamic.ResourceInterface(ri)
	if ns := obj.GetNamespace(); ns != "" {
		client = ri.Namespace(ns)
	}
	failure := func(err error) Failure {
		return Failure{Namespace: obj.GetNamespace(), Name: obj.GetName(), Message: err.Error()}
	}
	opts := metav1.UpdateOptions{}
	if dry {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	delay := m.retryDelay
	if delay == 0 {
		delay = 200 * time.Millisecond
	}
	var err error
	for range attempts {
		var got *unstructured.Unstructured
		got, err = client.Update(ctx, obj, opts)
		switch {
		case err == nil && dry:
			return accepted, Failure{}
		case err == nil && got.GetResourceVersion() == obj.GetResourceVersion():
			return unchanged, Failure{}
		case err == nil:
			return rewritten, Failure{}
		case apierrors.IsNotFound(err):
			return gone, Failure{}
		case apierrors.IsConflict(err):
			fresh, gerr := client.Get(ctx, obj.GetName(), metav1.GetOptions{})
			if apierrors.IsNotFound(gerr) {
				return gone, Failure{}
			}
			if gerr != nil {
				return failed, failure(gerr)
			}
			obj = fresh
			continue
		case retryable(err):
			wait := delay
			if s, ok := apierrors.SuggestsClientDelay(err); ok && s > 0 {
				wait = time.Duration(s) * time.Second
			}
			select {
			case <-ctx.Done():
				return failed, failure(ctx.Err())
			case <-time.After(wait):
			}
			delay *= 2
			continue
		}
		return failed, failure(err)
	}
	return failed, failure(fmt.Errorf("gave up after %d attempts: %w", attempts, err))
}

func retryable(err error) bool {
	return apierrors.IsTooManyRequests(err) || apierrors.IsServerTimeout(err) || apierrors.IsTimeout(err) ||
		apierrors.IsInternalError(err) || apierrors.IsServiceUnavailable(err) || apierrors.IsUnexpectedServerError(err)
}

// prune sets storedVersions to the storage version alone, on the CRD as it
// was read before the migration: if it changed since, only when its
// versions and storage version did not.
func (m *Migrator) prune(ctx context.Context, before *apiextensionsv1.CustomResourceDefinition) ([]string, error) {
	storage, _ := apihelpers.GetCRDStorageVersion(before)
	crd := before.DeepCopy()
	for range attempts {
		if slices.Equal(crd.Status.StoredVersions, []string{storage}) {
			return crd.Status.StoredVersions, nil
		}
		crd.Status.StoredVersions = []string{storage}
		updated, err := m.CRDs.UpdateStatus(ctx, crd, metav1.UpdateOptions{})
		if err == nil {
			return updated.Status.StoredVersions, nil
		}
		if !apierrors.IsConflict(err) {
			return nil, err
		}
		if crd, err = m.CRDs.Get(ctx, before.Name, metav1.GetOptions{}); err != nil {
			return nil, err
		}
		now, _ := apihelpers.GetCRDStorageVersion(crd)
		if now != storage || !sameVersions(before, crd) {
			return nil, fmt.Errorf("%w (storage version %s, versions %v; now %s, %v): storedVersions is left as it was",
				ErrCRDChanged, storage, versionNames(before), now, versionNames(crd))
		}
	}
	return nil, fmt.Errorf("storedVersions could not be updated: the CustomResourceDefinition kept changing")
}

func sameVersions(a, b *apiextensionsv1.CustomResourceDefinition) bool {
	return slices.Equal(versionNames(a), versionNames(b))
}

func versionNames(crd *apiextensionsv1.CustomResourceDefinition) []string {
	var out []string
	for _, v := range crd.Spec.Versions {
		out = append(out, v.Name)
	}
	return out
}

func failureKey(f Failure) string { return f.Namespace + "/" + f.Name }
