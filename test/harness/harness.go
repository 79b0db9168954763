// Package harness builds the kubectl-crd binary (and, for the tests that
// need one, a kubectl built from k8s.io/kubectl's packages) once per test
// package, and runs them as a user would, against a test cluster.
package harness

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/test/cluster"
)

// TestVersion is the version stamped into the plugin the tests build.
const TestVersion = "v0.0.0-e2e"

// Bin holds the built binaries.
type Bin struct {
	Dir      string // kubectl-crd, and kubectl after BuildKubectl
	RepoRoot string
	// Kubeconfig is the default KUBECONFIG of the commands run.
	Kubeconfig string

	mu      sync.Mutex
	outputs []string // stdout and stderr of every kubectl-crd run
	runs    []run    // every kubectl-crd command run

	helm struct { // see Helm
		sync.Once
		err error
	}
}

// run is a command to replay: its environment and arguments, and the
// temporary directory of the test that ran it (gone with the test; what
// the replay writes there is removed after it).
type run struct {
	env, args []string
	testDir   string
}

// Outputs returns the stdout and stderr of every kubectl-crd command run so
// far (to search them all for what must never be printed).
func (b *Bin) Outputs() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.outputs...)
}

// RaceBinaryEnv, set to 1, has Build build kubectl-crd with -race while
// the tests themselves run without it: CI's race phase for the end-to-end
// tests, whose concurrency under test is the binary's (the test code and
// the in-process kube-apiserver are not kubectl-crd's), so that it need
// not compile kube-apiserver and etcd with -race once more.
const RaceBinaryEnv = "KUBECTL_CRD_RACE_BINARY"

// Build builds kubectl-crd (with TestVersion stamped) into a new temporary
// directory. repoRoot is the module's root. When the tests run with
// -race, or RaceBinaryEnv is 1, kubectl-crd is built with -race (and cgo,
// which it needs): a race it detects prints "WARNING: DATA RACE" and
// makes the command exit 66. Tests that run kubectl too call
// BuildKubectl.
func Build(repoRoot string) (*Bin, error) {
	dir, err := os.MkdirTemp("", "kubectl-crd-bin-")
	if err != nil {
		return nil, err
	}
	// -w: no debug information, which no test reads (a stack trace needs
	// none); it makes the link, a large part of a test package's build,
	// about a quarter cheaper.
	args := []string{"build", "-o", filepath.Join(dir, "kubectl-crd"), "-ldflags", "-w -X github.com/kubectl-crd/kubectl-crd/pkg/cmd.Version=" + TestVersion}
	var env []string
	if raceDetector || os.Getenv(RaceBinaryEnv) == "1" {
		args = append(args, "-race")
		env = []string{"CGO_ENABLED=1"}
	}
	b := &Bin{Dir: dir, RepoRoot: repoRoot}
	if err := b.goBuild(env, append(args, "./cmd/kubectl-crd")...); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return b, nil
}

// BuildKubectl adds a kubectl built from k8s.io/kubectl's packages
// (./test/kubectl) beside kubectl-crd, for the tests that compare with
// kubectl or run kubectl crd as a kubectl plugin; the others do not pay
// for its link.
func (b *Bin) BuildKubectl() error {
	return b.goBuild(nil, "build", "-ldflags", "-w", "-o", filepath.Join(b.Dir, "kubectl"), "./test/kubectl")
}

func (b *Bin) goBuild(env []string, args ...string) error {
	cmd := exec.Command("go", args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = b.RepoRoot
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go %v: %v\n%s", args, err, out)
	}
	return nil
}

// Remove deletes the binaries.
func (b *Bin) Remove() { os.RemoveAll(b.Dir) }

// Result is what a command did.
type Result struct {
	Stdout, Stderr string
	Code           int
	Elapsed        time.Duration
	// PeakRSS is the most resident memory seen, in bytes (0 where /proc
	// cannot tell): see WatchPeakRSS.
	PeakRSS int64
}

// RunTimeout is how long Run lets a command run before killing it (and
// failing the test): kubectl crd must never hang.
var RunTimeout = 3 * time.Minute

// Run runs one of the built binaries with a clean environment: PATH holds
// only the built binaries, HOME is a fresh directory, KUBECONFIG is
// b.Kubeconfig; env adds to (or overrides) that.
func (b *Bin) Run(t testing.TB, name string, env []string, args ...string) Result {
	t.Helper()
	return b.RunIn(t, "", name, env, args...)
}

// RunIn runs a binary as Run does, in directory dir ("": the test's).
func (b *Bin) RunIn(t testing.TB, dir, name string, env []string, args ...string) Result {
	t.Helper()
	return b.run(t, dir, "", name, env, args...)
}

// RunStdin runs a binary as Run does, with stdin as its standard input.
func (b *Bin) RunStdin(t testing.TB, stdin, name string, env []string, args ...string) Result {
	t.Helper()
	return b.run(t, "", stdin, name, env, args...)
}

func (b *Bin) run(t testing.TB, dir, stdin, name string, env []string, args ...string) Result {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(filepath.Join(b.Dir, name), args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append([]string{
		"PATH=" + b.Dir,
		"HOME=" + home,
		"KUBECONFIG=" + b.Kubeconfig,
		"KUBECACHEDIR=" + filepath.Join(home, "cache"),
	}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("running %s %v: %v", name, args, err)
	}
	peak := WatchPeakRSS(cmd.Process.Pid)
	timer := time.AfterFunc(RunTimeout, func() { _ = cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	r := Result{Stdout: stdout.String(), Stderr: stderr.String(), Elapsed: time.Since(start), PeakRSS: peak()}
	if name == "kubectl-crd" {
		b.mu.Lock()
		b.outputs = append(b.outputs, r.Stdout, r.Stderr)
		b.runs = append(b.runs, run{env: cmd.Env, args: args, testDir: filepath.Dir(home)})
		b.mu.Unlock()
	}
	if r.Elapsed >= RunTimeout {
		t.Fatalf("%s %v: killed after %v", name, args, RunTimeout)
	}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s %v: %v", name, args, err)
	}
	return r
}

// Start builds kubectl-crd and starts a test cluster whose kubeconfig it
// uses. stop undoes both.
func Start(repoRoot string) (b *Bin, c *cluster.Cluster, stop func(), err error) {
	if b, err = Build(repoRoot); err != nil {
		return nil, nil, nil, err
	}
	if c, err = cluster.Start(cluster.Options{}); err != nil {
		b.Remove()
		return nil, nil, nil, fmt.Errorf("starting the test cluster: %w", err)
	}
	b.Kubeconfig = c.Kubeconfig
	return b, c, func() { c.Stop(); b.Remove() }, nil
}

// Replay runs every kubectl-crd command run so far again, with first
// before its arguments (such as -v=9), each for at most timeout (a watch
// does not end by itself), and returns the number of commands and their
// outputs. What the commands write again into their tests' temporary
// directories (caches, output directories) is removed afterwards.
func (b *Bin) Replay(first string, timeout time.Duration) (int, []string) {
	b.mu.Lock()
	runs := append([]run(nil), b.runs...)
	b.mu.Unlock()
	var outputs []string
	defer func() {
		for _, r := range runs {
			os.RemoveAll(r.testDir)
		}
	}()
	for _, r := range runs {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		cmd := exec.CommandContext(ctx, filepath.Join(b.Dir, "kubectl-crd"), append([]string{first}, r.args...)...)
		cmd.Env = r.env
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		_ = cmd.Run()
		cancel()
		outputs = append(outputs, stdout.String(), stderr.String())
	}
	return len(runs), outputs
}

// Running is a command started with Start.
type Running struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	start          time.Time
	done           chan struct{}
	err            error
}

// Start starts one of the built binaries as Run would run it, and returns
// at once: Signal and Wait follow. The test fails if it has not ended
// after RunTimeout.
func (b *Bin) Start(t testing.TB, name string, env []string, args ...string) *Running {
	t.Helper()
	home := t.TempDir()
	r := &Running{done: make(chan struct{})}
	r.cmd = exec.Command(filepath.Join(b.Dir, name), args...)
	r.cmd.Env = append([]string{
		"PATH=" + b.Dir,
		"HOME=" + home,
		"KUBECONFIG=" + b.Kubeconfig,
		"KUBECACHEDIR=" + filepath.Join(home, "cache"),
	}, env...)
	r.cmd.Stdout, r.cmd.Stderr = &r.stdout, &r.stderr
	r.start = time.Now()
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("starting %s %v: %v", name, args, err)
	}
	go func() {
		r.err = r.cmd.Wait()
		close(r.done)
	}()
	timer := time.AfterFunc(RunTimeout, func() { _ = r.cmd.Process.Kill() })
	t.Cleanup(func() { timer.Stop(); _ = r.cmd.Process.Kill(); <-r.done })
	return r
}

// Signal sends sig to the command.
func (r *Running) Signal(t testing.TB, sig os.Signal) {
	t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("signal %v: %v", sig, err)
	}
}

// Wait waits for the command to end and returns what it did. A command
// that a signal killed (no handler) has Code -1.
func (r *Running) Wait(t testing.TB) Result {
	t.Helper()
	<-r.done
	res := Result{Stdout: r.stdout.String(), Stderr: r.stderr.String(), Elapsed: time.Since(r.start)}
	if ee, ok := r.err.(*exec.ExitError); ok {
		res.Code = ee.ExitCode()
	} else if r.err != nil {
		t.Fatalf("%v: %v", r.cmd.Args, r.err)
	}
	return res
}

// Helm is a helm binary for the tests of flux: sources, whose
// HelmReleases kubectl crd renders with the user's helm: KUBECTL_CRD_HELM
// when set, else helm built under the binaries' directory (once; not on
// the PATH the commands run with) from the version go.mod names as a
// tool (the module proxy serves it; nothing is downloaded from
// elsewhere).
func (b *Bin) Helm(t testing.TB) string {
	t.Helper()
	if h := os.Getenv("KUBECTL_CRD_HELM"); h != "" {
		return h
	}
	helm := filepath.Join(b.Dir, "tools", "helm")
	b.helm.Do(func() {
		b.helm.err = b.goBuild(nil, "build", "-ldflags", "-w", "-o", helm, "helm.sh/helm/v3/cmd/helm")
	})
	if b.helm.err != nil {
		t.Fatal(b.helm.err)
	}
	return helm
}
