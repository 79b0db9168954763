// Package bench holds the benchmarks that compare kubectl crd with kubectl
// in the same run, against the in-process API server. Run them with
//
//	go test ./test/bench -run '^$' -bench . -benchtime 10x
package bench

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/test/cluster"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// objects is how many custom resources BenchmarkGet lists.
const objects = 3000

var (
	testCluster *cluster.Cluster
	bin         *harness.Bin
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	flag.Parse()
	if f := flag.Lookup("test.bench"); f == nil || f.Value.String() == "" {
		return m.Run() // no benchmark asked for: no cluster needed
	}
	repoRoot, err := filepath.Abs("../..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var stop func()
	if bin, testCluster, stop, err = harness.Start(repoRoot); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	if err := bin.BuildKubectl(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if _, err := testCluster.LoadCRDs(context.Background(), filepath.Join(repoRoot, "test/testdata/crds")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

var loadOnce sync.Once

// loadSamples creates the benchmark's objects once.
func loadSamples(b *testing.B) {
	loadOnce.Do(func() {
		err := testCluster.CreateMany(context.Background(), 0, objects, func(i int) *unstructured.Unstructured {
			return &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "printing.example.com/v1", "kind": "Sample",
				"metadata": map[string]any{"name": fmt.Sprintf("sample-%05d", i), "namespace": "bench",
					"labels": map[string]any{"tier": []string{"front", "back"}[i%2]}},
				"spec": map[string]any{
					"color": []string{"red", "green", "blue"}[i%3], "count": int64(i), "ratio": float64(i) / 7,
					"enabled": i%2 == 0, "items": []any{map[string]any{"name": fmt.Sprint("item-", i)}},
					"note": "a note\nwith two lines", "started": "2020-01-01T00:00:00Z",
				},
				"status": map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}},
			}}
		})
		if err != nil {
			b.Fatal(err)
		}
	})
}

type sample struct {
	wall   time.Duration
	maxRSS int64 // KiB
}

// runOnce runs one binary and returns its wall time and, when measure is
// set, its peak memory (reading it costs time, so timed runs do not).
func runOnce(b *testing.B, name string, measure bool, args ...string) sample {
	cmd := exec.Command(filepath.Join(bin.Dir, name), args...)
	cmd.Env = []string{"KUBECONFIG=" + testCluster.Kubeconfig, "HOME=" + b.TempDir(), "PATH=" + bin.Dir}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	// The child's rusage counts the memory of this (large) process it was
	// forked from, so peak memory is read from /proc while it runs.
	peak := func() int64 { return 0 }
	if measure {
		peak = harness.WatchPeakRSS(cmd.Process.Pid)
	}
	err := cmd.Wait()
	wall := time.Since(start)
	maxRSS := peak() >> 10
	if err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, stderr.String())
	}
	return sample{wall: wall, maxRSS: maxRSS}
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// BenchmarkGet lists 3,000 samples with -o wide and --request-timeout (so
// that every page is a request with a deadline of its own, as in scripts),
// alternating kubectl crd
// get (client-side Table) and kubectl get (server-side Table) in each
// iteration, each with its discovery cache warmed by a first run. It
// reports both medians, their ratio, peak RSS, and the API requests one
// kubectl crd get makes.
func BenchmarkGet(b *testing.B) {
	loadSamples(b)
	args := []string{"get", "samples", "-n", "bench", "-o", "wide", "--request-timeout", "30s", "--cache-dir", b.TempDir()}
	// Warm the discovery cache, measure memory, count requests.
	kubectlRSS := runOnce(b, "kubectl", true, args...).maxRSS
	testCluster.ResetRequests()
	pluginRSS := runOnce(b, "kubectl-crd", true, args...).maxRSS
	requests := testCluster.Requests()

	var plugin, kubectl []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		plugin = append(plugin, runOnce(b, "kubectl-crd", false, args...).wall)
		kubectl = append(kubectl, runOnce(b, "kubectl", false, args...).wall)
	}
	b.StopTimer()
	pm, km := median(plugin), median(kubectl)
	b.ReportMetric(float64(pm.Milliseconds()), "kubectl-crd-ms")
	b.ReportMetric(float64(km.Milliseconds()), "kubectl-ms")
	b.ReportMetric(float64(pm)/float64(km), "ratio")
	b.ReportMetric(float64(pluginRSS)/1024, "kubectl-crd-maxRSS-MiB")
	b.ReportMetric(float64(kubectlRSS)/1024, "kubectl-maxRSS-MiB")
	b.ReportMetric(float64(len(requests)), "requests")
	for _, r := range requests {
		b.Logf("request: %s %s?%s", r.Method, r.Path, r.Query)
	}
}

// BenchmarkStartup runs `kubectl crd version` and `kubectl version
// --client` (kubectl built from the same k8s.io/kubectl as kubectl crd),
// alternating in each iteration: what starting costs each, which is
// mostly Go's initialisation of the packages each links. It reports both
// medians, their ratio and peak RSS.
func BenchmarkStartup(b *testing.B) {
	pluginRSS := runOnce(b, "kubectl-crd", true, "version").maxRSS
	kubectlRSS := runOnce(b, "kubectl", true, "version", "--client").maxRSS
	var plugin, kubectl []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		plugin = append(plugin, runOnce(b, "kubectl-crd", false, "version").wall)
		kubectl = append(kubectl, runOnce(b, "kubectl", false, "version", "--client").wall)
	}
	b.StopTimer()
	pm, km := median(plugin), median(kubectl)
	b.ReportMetric(float64(pm.Microseconds())/1000, "kubectl-crd-ms")
	b.ReportMetric(float64(km.Microseconds())/1000, "kubectl-ms")
	b.ReportMetric(float64(pm)/float64(km), "ratio")
	b.ReportMetric(float64(pluginRSS)/1024, "kubectl-crd-maxRSS-MiB")
	b.ReportMetric(float64(kubectlRSS)/1024, "kubectl-maxRSS-MiB")
}
