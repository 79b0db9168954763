// Package e2e runs kubectl crd against the in-process API server: in
// process (to compare with kubectl's own packages) and as the built binary,
// directly and through kubectl's plugin mechanism.
package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/test/cluster"
)

const testVersion = "v0.0.0-e2e"

var (
	testCluster *cluster.Cluster
	binDir      string // kubectl-crd and kubectl, built once
	repoRoot    string
	crdDirs     []string // the CRDs loaded into the cluster
	objectDir   string   // the objects loaded into the cluster
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if repoRoot, err = filepath.Abs("../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	crdDirs = []string{filepath.Join(repoRoot, "test/testdata/crds"), filepath.Join(repoRoot, "examples/crds")}
	objectDir = filepath.Join(repoRoot, "test/testdata/objects")

	if binDir, err = os.MkdirTemp("", "kubectl-crd-e2e-bin-"); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(binDir)
	if err := buildBinaries(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}

	testCluster, err = cluster.Start(cluster.Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting the test cluster: %v\n", err)
		return 1
	}
	defer testCluster.Stop()
	if _, err := testCluster.LoadCRDs(context.Background(), crdDirs...); err != nil {
		fmt.Fprintf(os.Stderr, "loading CRDs: %v\n", err)
		return 1
	}
	if _, err := testCluster.Load(context.Background(), objectDir); err != nil {
		fmt.Fprintf(os.Stderr, "loading objects: %v\n", err)
		return 1
	}
	return m.Run()
}

// buildBinaries builds the plugin (with a stamped version) and kubectl from
// k8s.io/kubectl's packages.
func buildBinaries() error {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	builds := [][]string{
		{"build", "-o", filepath.Join(binDir, "kubectl-crd"), "-ldflags", "-X github.com/kubectl-crd/kubectl-crd/pkg/cmd.Version=" + testVersion, "./cmd/kubectl-crd"},
		{"build", "-o", filepath.Join(binDir, "kubectl"), "./test/kubectl"},
	}
	for _, args := range builds {
		cmd := exec.Command(goBin, args...)
		cmd.Dir = repoRoot
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %v: %v\n%s", args, err, out)
		}
	}
	return nil
}
