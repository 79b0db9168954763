// Package load checks kubectl crd's memory against its input's size:
// validate's stays flat from 5,000 objects to 50,000, get's grows no more
// than linearly up to 10,000.
package load

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/test/cluster"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var (
	bin         *harness.Bin
	testCluster *cluster.Cluster
	repoRoot    string
)

func TestMain(m *testing.M) {
	var err error
	if repoRoot, err = filepath.Abs("../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var stop func()
	if bin, testCluster, stop, err = harness.Start(repoRoot); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := func() int {
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
	}()
	os.Exit(code)
}

// linear fails unless the memory above a small run's grows at most as the
// input does (with a quarter more for allocator and GC slack): peak(n) -
// base <= 1.25 * n/small * (peak(small) - base).
func linear(t *testing.T, what string, base, small, big int64, nSmall, nBig int) {
	t.Helper()
	perSmall := float64(small-base) / float64(nSmall)
	perBig := float64(big-base) / float64(nBig)
	t.Logf("%s: %d MiB with no objects, %d MiB for %d, %d MiB for %d (%.1f and %.1f KiB per object)",
		what, base>>20, small>>20, nSmall, big>>20, nBig, perSmall/1024, perBig/1024)
	if base == 0 || small == 0 || big == 0 {
		t.Fatalf("%s: peak memory not seen (is /proc there?)", what)
	}
	if perBig > 1.25*perSmall {
		t.Errorf("%s: memory grows faster than the input: %.1f KiB per object at %d, %.1f at %d", what, perBig/1024, nBig, perSmall/1024, nSmall)
	}
}

// Validate reads its input as it checks it: its memory does not grow with
// the input. 45,000 more documents are 6.5 MB more YAML; a run that kept
// its input (or its results) would hold at least that, twice over between
// two garbage collections.
func TestValidateMemoryIsFlat(t *testing.T) {
	dir := t.TempDir()
	crds := filepath.Join(repoRoot, "examples/crds/crontab.yaml")
	peak := map[int]int64{}
	for _, n := range []int{5000, 50000} {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ct-%d\nspec:\n  cronSpec: \"*/5 * * * *\"\n  image: img:%d\n  replicas: %d\n", i, i, 1+i%9)
		}
		file := filepath.Join(dir, fmt.Sprint(n, ".yaml"))
		if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		r := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "validate", "-f", file, "--crds", crds)
		if want := fmt.Sprintf("%d valid, 0 invalid, 0 skipped, 0 errors\n", n); r.Code != 0 || !strings.HasSuffix(r.Stdout, want) {
			t.Fatalf("%d objects: exit %d\n%s%s", n, r.Code, r.Stdout, r.Stderr)
		}
		if r.PeakRSS == 0 {
			t.Fatal("peak memory not seen (is /proc there?)")
		}
		peak[n] = r.PeakRSS
		t.Logf("validate, %d objects: %v, %d MiB", n, r.Elapsed, r.PeakRSS>>20)
	}
	if grown := peak[50000] - peak[5000]; grown > 8<<20 {
		t.Errorf("validate: %d MiB more for 50,000 documents than for 5,000, want at most 8", grown>>20)
	}
}

func TestGetMemoryIsLinear(t *testing.T) {
	peak, kubectlPeak := map[int]int64{}, map[int]int64{}
	created := 0
	for _, n := range []int{0, 2500, 10000} {
		createSamples(t, created, n)
		created = n
		args := []string{"get", "samples", "-n", "load", "-o", "wide"}
		r := bin.Run(t, "kubectl-crd", nil, args...)
		k := bin.Run(t, "kubectl", nil, args...)
		if r.Code != 0 || k.Code != 0 || strings.Count(r.Stdout, "\n") != strings.Count(k.Stdout, "\n") {
			t.Fatalf("%d objects: exit %d (kubectl %d), %d lines (kubectl %d)\n%s", n, r.Code, k.Code,
				strings.Count(r.Stdout, "\n"), strings.Count(k.Stdout, "\n"), r.Stderr)
		}
		peak[n], kubectlPeak[n] = r.PeakRSS, k.PeakRSS
		t.Logf("get, %d objects: kubectl crd %v, %d MiB; kubectl %v, %d MiB", n, r.Elapsed, r.PeakRSS>>20, k.Elapsed, k.PeakRSS>>20)
	}
	linear(t, "get", peak[0], peak[2500], peak[10000], 2500, 10000)
	linear(t, "kubectl get (for comparison)", kubectlPeak[0], kubectlPeak[2500], kubectlPeak[10000], 2500, 10000)
}

// createSamples creates samples from..to-1 in namespace load.
func createSamples(t *testing.T, from, to int) {
	err := testCluster.CreateMany(context.Background(), from, to, func(i int) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "printing.example.com/v1", "kind": "Sample",
			"metadata": map[string]any{"name": fmt.Sprintf("sample-%05d", i), "namespace": "load"},
			"spec": map[string]any{"color": []string{"red", "green", "blue"}[i%3], "count": int64(i),
				"ratio": float64(i) / 7, "enabled": i%2 == 0, "note": "a note", "started": "2020-01-01T00:00:00Z"},
		}}
	})
	if err != nil {
		t.Fatal(err)
	}
}
