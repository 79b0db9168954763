package validate

import (
	"context"
	"runtime"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

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

// documents decodes and validates every document of input, several at a
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
func documents(ctx context.Context, input Input, kinds Kinds, opts Options) (Report, error) {
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
	r := out.report()
	r.KubernetesVersion = kubeversion.OrNewest(opts.KubernetesVersion).String()
	return r, nil
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

// optsFor are the options d is checked with: a rendered object that names
// no namespace goes where the tool that applies it puts it (a Helm
// release's namespace), not where the command's -n would.
func (c *checker) optsFor(d *manifest.Document) Options {
	opts := c.opts
	if d.Namespace != "" {
		opts.Namespace = d.Namespace
	}
	return opts
}
