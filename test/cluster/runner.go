package cluster

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// runner is the testing.TB that kube-apiserver's test server wants, for
// callers that are not tests (devcluster, TestMain): logs go to a writer,
// a fatal error ends the call that raised it (see run), and cleanups run
// at stop, last first.
type runner struct {
	log io.Writer
	dir string

	mu       sync.Mutex
	failed   bool
	cleanups []func()
}

// errFatal is what Fatal and Skip raise, caught by run.
var errFatal = errors.New("kube-apiserver test server failed")

// run calls f and turns a Fatal or Skip inside it into an error.
func (r *runner) run(f func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if p != errFatal {
				panic(p)
			}
			err = errFatal
		}
	}()
	return f()
}

// stop runs the cleanups, last registered first.
func (r *runner) stop() {
	r.mu.Lock()
	cleanups := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
}

func (r *runner) Attr(key, value string) {}
func (r *runner) Chdir(dir string)       { r.Fatalf("Chdir(%q) is not supported", dir) }
func (r *runner) Cleanup(f func()) {
	r.mu.Lock()
	r.cleanups = append(r.cleanups, f)
	r.mu.Unlock()
}
func (r *runner) Error(args ...any) { r.Log(args...); r.Fail() }
func (r *runner) Errorf(format string, args ...any) {
	r.Logf(format, args...)
	r.Fail()
}
func (r *runner) Fail() {
	r.mu.Lock()
	r.failed = true
	r.mu.Unlock()
}
func (r *runner) FailNow()          { r.Fail(); panic(errFatal) }
func (r *runner) Failed() bool      { r.mu.Lock(); defer r.mu.Unlock(); return r.failed }
func (r *runner) Fatal(args ...any) { r.Log(args...); r.FailNow() }
func (r *runner) Fatalf(format string, args ...any) {
	r.Logf(format, args...)
	r.FailNow()
}
func (r *runner) Helper()                          {}
func (r *runner) Log(args ...any)                  { fmt.Fprintln(r.log, args...) }
func (r *runner) Logf(format string, args ...any)  { fmt.Fprintf(r.log, format+"\n", args...) }
func (r *runner) Name() string                     { return "kube-apiserver" }
func (r *runner) Setenv(key, value string)         { r.Fatalf("Setenv(%q) is not supported", key) }
func (r *runner) Skip(args ...any)                 { r.Log(args...); r.SkipNow() }
func (r *runner) Skipf(format string, args ...any) { r.Logf(format, args...); r.SkipNow() }
func (r *runner) SkipNow()                         { panic(errFatal) }
func (r *runner) Skipped() bool                    { return false }
func (r *runner) TempDir() string {
	dir, err := os.MkdirTemp(r.dir, "tmp-")
	if err != nil {
		r.Fatal(err)
	}
	return dir
}
