package validate

import (
	"context"
	"errors"
	"fmt"
	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kubectl-crd/kubectl-crd/internal/memo"
	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
)

// Kinds finds the CRD that defines a kind (a catalog.Catalog does): nil
// and no error when none does, an error when it cannot tell.
type Kinds interface {
	ForKind(ctx context.Context, gk schema.GroupKind) (*catalog.CRD, error)
}

// Problem is one error or warning about one object.
type Problem struct {
	Field   string `json:"field"`
	Type    string `json:"type"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
}

// ObjectResult is the verdict on one object.
type ObjectResult struct {
	File       string    `json:"file"`
	Line       int       `json:"line"`
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Namespace  string    `json:"namespace,omitempty"`
	Name       string    `json:"name"`
	Operation  string    `json:"operation"`
	Status     string    `json:"status"` // valid, invalid, skipped or error
	Errors     []Problem `json:"errors"`
	Warnings   []Problem `json:"warnings"`
	Reason     string    `json:"reason,omitempty"` // why skipped, or the error
	// Checks is "schema" for an object checked against its kind's
	// published OpenAPI schema only; "" when checked as the server checks.
	Checks string `json:"checks,omitempty"`
	// Object is the valid object as the server would store it (with
	// Options.Keep).
	Object map[string]any `json:"-"`
}

// Summary counts the verdicts.
type Summary struct {
	Valid   int `json:"valid"`
	Invalid int `json:"invalid"`
	Skipped int `json:"skipped"`
	Errors  int `json:"errors"`
}

// Report is the verdict on every object, in input order.
type Report struct {
	Results []ObjectResult `json:"results"`
	Summary Summary        `json:"summary"`
	// KubernetesVersion is the version whose answers these are
	// (MAJOR.MINOR; see pkg/kubeversion).
	KubernetesVersion string `json:"kubernetesVersion"`
}

// UnknownFields says what unknown fields are: "strict" (errors), "warn"
// (warnings) or "ignore".
type UnknownFields string

// OldLookup finds the object a document would update: the live object, or
// one given in a file; nil and no error when there is none (a create).
// gvr is the resource of the object's kind gvk.
type OldLookup func(ctx context.Context, gvk schema.GroupVersionKind, gvr schema.GroupVersionResource, namespace, name string) (map[string]any, error)

// Options say how Documents validates.
type Options struct {
	Unknown UnknownFields
	// StrictKinds makes objects of kinds without a CRD invalid, not
	// skipped.
	StrictKinds bool
	// BuiltIn checks the kinds kube-apiserver serves itself; nil skips
	// them.
	BuiltIn *builtin.Kinds
	// Skip, when set, tells which kinds are skipped unchecked.
	Skip func(schema.GroupVersionKind) bool
	// Published, when set, gives the OpenAPI schema the cluster publishes
	// for a kind (resolver.ClientDiscoveryResolver reads /openapi/v3):
	// objects of kinds that are neither built in nor defined by a CRD are
	// checked against it.
	Published resolver.SchemaResolver
	// Namespace is where namespaced objects without one go ("default"
	// when empty), as kubectl apply sends them.
	Namespace string
	// Old, when set, turns documents whose object exists into updates.
	Old OldLookup
	// OldCRD, when set, turns CRD documents whose CRD exists into updates:
	// it returns the CRD as the cluster keeps it (status included), nil
	// when there is none.
	OldCRD func(ctx context.Context, name string) (*apiextensionsv1.CustomResourceDefinition, error)
	// Keep keeps each valid object as the server would store it, in
	// ObjectResult.Object.
	Keep bool
	// Emit, when set, receives each result in input order as soon as it
	// and those before it are made; the Report then holds only the
	// summary.
	Emit func(ObjectResult)
	// Cache, when set, is what earlier runs learnt and what this one
	// keeps (a long-lived front end passes the same one to every run);
	// else the run has its own.
	Cache *Cache
}

// Environment is what checks are made with, as a front end sets it up from
// its flags (validate's command, lsp): the catalog of CRDs, and the
// options that come from the cluster or its absence (built-in kinds,
// published schemas, the namespace).
type Environment struct {
	Catalog *catalog.Catalog
	Options Options
}

// Cache is what checks learn and keep: the CRD of each kind met, what
// kube-apiserver's own kinds and the published schemas say of a kind, and
// each CRD version's validator, each asked or built once. It is safe for
// concurrent use; runs that share one ask their Kinds one question at a
// time.
type Cache struct {
	lookups    sync.Mutex // one question to the catalog or the cluster at a time
	crds       memo.Map[schema.GroupKind, *kindCRD]
	builtins   memo.Map[schema.GroupVersionKind, builtinKind]
	published  memo.Map[schema.GroupVersionKind, *published]
	validators memo.Map[string, *Validator] // by CRD name and version
}

// NewCache makes an empty Cache.
func NewCache() *Cache { return &Cache{} }

// Forget drops what the cache knows of a kind's CRD and its validators:
// the CRD changed.
func (c *Cache) Forget(gk schema.GroupKind) {
	if crd, ok := c.crds.Known(gk); ok && crd != nil {
		prefix := crd.Name + "/"
		c.validators.Forget(func(k string) bool { return strings.HasPrefix(k, prefix) })
	}
	c.crds.Forget(func(k schema.GroupKind) bool { return k == gk })
}

// ForgetFailed drops the answers that were errors (a cluster that could
// not answer), so that the next run asks again.
func (c *Cache) ForgetFailed() {
	c.crds.ForgetFailed()
	c.builtins.ForgetFailed()
	c.published.ForgetFailed()
	c.validators.ForgetFailed()
}

// Input gives documents' chunks in order (a *manifest.Input does).
type Input interface {
	Each(f func(manifest.Chunk) bool) error
}

// eachMentioning passes f the chunks of input that mention s, quicker
// where input can tell without decoding (a *manifest.Input).
func eachMentioning(input Input, s string, f func(manifest.Chunk) bool) error {
	if in, ok := input.(interface {
		EachMentioning(string, func(manifest.Chunk) bool) error
	}); ok {
		return in.EachMentioning(s, f)
	}
	return input.Each(func(c manifest.Chunk) bool {
		if c.Mentions(s) {
			return f(c)
		}
		return true
	})
}

// InputCRDs decodes the CRDs of the input, for the objects beside them
// wherever they stand: a first walk over the input, before any object is
// checked, which reads and decodes only the documents that mention the
// kind (they are read again when they are checked). A CRD that does not decode is
// left out: its own result says why.
func InputCRDs(input Input) ([]*catalog.CRD, error) {
	var crds []*catalog.CRD
	err := eachMentioning(input, "CustomResourceDefinition", func(chunk manifest.Chunk) bool {
		docs := chunk.Decode()
		for j := range docs {
			d := &docs[j]
			if d.Err != nil || !catalog.IsCRD(d.TypeMeta()) {
				continue
			}
			if crd, err := catalog.DecodeCRD(d); err == nil {
				crds = append(crds, crd)
			}
		}
		return true
	})
	return crds, err
}

// Documents decodes and validates every document of input, several at a
// time, each CRD version's validator built once; results are in input
// order. Custom resources are checked as creates (or, with Options.Old,
// as updates of what exists), CRDs as the server checks a new CRD,
// documents that cannot be read are errors. Input is read as it is
// checked: a document is decoded, checked and let go by one worker, and
// a few chunks wait for a worker (or for a validator another worker
// builds); what stays is the results. The CRD of a kind is found when the
// kind is first met, one kind at a time; an error
// finding one (a cluster that cannot be asked), or reading the input,
// ends the check and is returned.
func Documents(ctx context.Context, input Input, kinds Kinds, opts Options) (Report, error) {
	c := &checker{kinds: kinds, opts: opts, Cache: opts.Cache}
	if c.Cache == nil {
		c.Cache = NewCache()
	}
	out := &inOrder{emit: opts.Emit, pending: map[int][]ObjectResult{}}
	workers := runtime.GOMAXPROCS(0)
	jobs := make(chan job, 4*workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() { c.work(ctx, jobs, out) })
	}
	n := 0
	readErr := input.Each(func(chunk manifest.Chunk) bool {
		if c.failed() != nil {
			return false
		}
		jobs <- job{n, chunk}
		n++
		return true
	})
	close(jobs)
	wg.Wait()
	if err := c.failed(); err != nil {
		return Report{}, err
	}
	if readErr != nil {
		return Report{}, readErr
	}
	return out.report(), nil
}

// A job is a chunk of the input and its place in it.
type job struct {
	i     int
	chunk manifest.Chunk
}

// putOff is a chunk's documents, put off while another worker finds
// their kind's CRD or builds their validator.
type putOff struct {
	i    int
	docs []manifest.Document
}

// How many chunks a worker puts off at most, and how much of their JSON:
// enough for a run of documents of one kind, the way files list them.
const (
	maxPutOff      = 64
	maxPutOffBytes = 16 << 20
)

func jsonSize(docs []manifest.Document) int {
	n := 0
	for k := range docs {
		n += len(docs[k].JSON)
	}
	return n
}

// work checks the chunks of jobs. A chunk that would wait for another
// worker (finding its kind's CRD, building its validator) is put off,
// and the next chunks are checked meanwhile, each put-off chunk as soon
// as it would not wait; with maxPutOff chunks (or maxPutOffBytes) put
// off, the worker waits as well.
func (c *checker) work(ctx context.Context, jobs <-chan job, out *inOrder) {
	var later []putOff
	held := 0 // bytes of JSON in later
	for j := range jobs {
		if c.failed() != nil {
			out.done(j.i, nil)
			continue
		}
		docs := j.chunk.Decode()
		if size := jsonSize(docs); len(later) < maxPutOff && held+size <= maxPutOffBytes && c.waits(docs) {
			later = append(later, putOff{j.i, docs})
			held += size
			continue
		}
		out.done(j.i, c.check(ctx, docs))
		waiting := later[:0]
		for _, p := range later {
			if c.waits(p.docs) {
				waiting = append(waiting, p)
			} else {
				out.done(p.i, c.check(ctx, p.docs))
				held -= jsonSize(p.docs)
			}
		}
		later = waiting
	}
	for _, p := range later {
		out.done(p.i, c.check(ctx, p.docs))
	}
}

// check checks the documents of a chunk (none once the check has failed).
func (c *checker) check(ctx context.Context, docs []manifest.Document) []ObjectResult {
	if c.failed() != nil {
		return nil
	}
	results := make([]ObjectResult, len(docs))
	for k := range docs {
		results[k] = c.one(ctx, &docs[k])
	}
	return results
}

// waits tells whether checking docs would now wait for another worker:
// for the CRD of their kind, being looked up, or for their version's
// validator, being built.
func (c *checker) waits(docs []manifest.Document) bool {
	if !c.crds.Computing() && !c.validators.Computing() {
		return false // most of the time, once the input's kinds are known
	}
	for k := range docs {
		tm := docs[k].TypeMeta()
		gv, err := schema.ParseGroupVersion(tm.APIVersion)
		if err != nil {
			continue
		}
		gk := gv.WithKind(tm.Kind).GroupKind()
		if c.crds.Busy(gk) {
			return true
		}
		if crd, ok := c.crds.Known(gk); ok && crd != nil && c.validators.Busy(validatorKey(crd, gv.Version)) {
			return true
		}
	}
	return false
}

// checker holds what the documents of one input share: its Cache (what
// the catalog said of each kind, asked once, and each CRD version's
// validator, built once). A kind looked up before is answered without
// waiting for the catalog, which answers one question at a time.
type checker struct {
	kinds Kinds
	opts  Options
	*Cache

	errMu sync.Mutex
	err   error // the first error that ends the check
}

// builtinKind is what builtin.Kinds said of a kind.
type builtinKind struct {
	kind *builtin.Kind
	err  error // a *builtin.NotServedError or *builtin.UncheckedError
}

// builtinFor looks a kind up among kube-apiserver's own (nil: it is not
// one of them).
func (c *checker) builtinFor(gvk schema.GroupVersionKind, d *manifest.Document) (builtinKind, error) {
	if c.opts.BuiltIn == nil {
		return builtinKind{}, nil
	}
	return c.builtins.Get(gvk, func() (builtinKind, error) {
		c.lookups.Lock()
		defer c.lookups.Unlock()
		kind, err := c.opts.BuiltIn.Lookup(gvk)
		var notServed *builtin.NotServedError
		var unchecked *builtin.UncheckedError
		if err != nil && !errors.As(err, &notServed) && !errors.As(err, &unchecked) {
			return builtinKind{}, c.fail(fmt.Errorf("finding whether the cluster serves %s (at %s): %w", gvk, d.Pos(), err))
		}
		return builtinKind{kind, err}, nil
	})
}

// kindCRD is what the documents of one kind share: the outline of its
// CRD (names, scope, versions), and the whole CRD until the first
// validator is built from it. A CRD's schemas are most of its memory and
// are not kept: another version's validator finds the CRD again.
type kindCRD struct {
	*catalog.CRD // the outline
	whole        atomic.Pointer[catalog.CRD]
}

// crdFor returns the CRD of a kind (nil: none defines it).
func (c *checker) crdFor(ctx context.Context, gk schema.GroupKind, d *manifest.Document) (*kindCRD, error) {
	return c.crds.Get(gk, func() (*kindCRD, error) {
		c.lookups.Lock()
		defer c.lookups.Unlock()
		whole, err := c.kinds.ForKind(ctx, gk)
		if err != nil {
			return nil, c.fail(fmt.Errorf("finding the CustomResourceDefinition of %s (at %s): %w", gk, d.Pos(), err))
		}
		if whole == nil {
			return nil, nil
		}
		outline := &catalog.CRD{CustomResourceDefinition: catalog.Outline(whole.CustomResourceDefinition), Origin: whole.Origin}
		crd := &kindCRD{CRD: outline}
		crd.whole.Store(whole)
		return crd, nil
	})
}

// validatorFor returns the validator of a version of crd, built the
// first time it is asked for.
func (c *checker) validatorFor(ctx context.Context, gvk schema.GroupVersionKind, crd *kindCRD) (*Validator, error) {
	return c.validators.Get(validatorKey(crd, gvk.Version), func() (*Validator, error) {
		whole, err := c.takeWhole(ctx, gvk.GroupKind(), crd)
		if err != nil {
			return nil, err
		}
		return NewValidator(whole.CustomResourceDefinition, gvk.Version)
	})
}

// validatorKey names the validator of a version of crd.
func validatorKey(crd *kindCRD, version string) string {
	return crd.Name + "/" + version
}

// takeWhole returns the whole CRD of crd: the one it was found with, the
// first time, and then the CRD found again.
func (c *checker) takeWhole(ctx context.Context, gk schema.GroupKind, crd *kindCRD) (*catalog.CRD, error) {
	if whole := crd.whole.Swap(nil); whole != nil {
		return whole, nil
	}
	c.lookups.Lock()
	defer c.lookups.Unlock()
	again, err := c.kinds.ForKind(ctx, gk)
	if err != nil {
		return nil, err
	}
	if again == nil || again.Name != crd.Name {
		return nil, fmt.Errorf("the CustomResourceDefinition %s (%s) is no longer there", crd.Name, crd.Origin)
	}
	return again, nil
}

// fail records the first error that ends the check, and returns it.
func (c *checker) fail(err error) error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	if c.err == nil {
		c.err = err
	}
	return c.err
}

func (c *checker) failed() error {
	c.errMu.Lock()
	defer c.errMu.Unlock()
	return c.err
}

// inOrder collects results by chunk and passes them on in input order.
type inOrder struct {
	emit func(ObjectResult)

	mu      sync.Mutex
	pending map[int][]ObjectResult // by chunk, until passed on
	next    int
	kept    []ObjectResult // without emit
	summary Summary
}

// done records the results of chunk i, and passes on every result whose
// turn has come.
func (o *inOrder) done(i int, results []ObjectResult) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.pending[i] = results
	for {
		results, ok := o.pending[o.next]
		if !ok {
			return
		}
		delete(o.pending, o.next)
		o.next++
		for _, res := range results {
			o.summary.count(res.Status)
			if o.emit != nil {
				o.emit(res)
			} else {
				o.kept = append(o.kept, res)
			}
		}
	}
}

func (o *inOrder) report() Report {
	return Report{Results: o.kept, Summary: o.summary, KubernetesVersion: kubeversion.Current().String()}
}

func (s *Summary) count(status string) {
	switch status {
	case "valid":
		s.Valid++
	case "invalid":
		s.Invalid++
	case "skipped":
		s.Skipped++
	default:
		s.Errors++
	}
}
