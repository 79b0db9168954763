// Package crdtest tests the CRD author's verbs, test and cost, against
// kube-apiserver in-process. It runs every case of the project's CRD test
// suites twice:
// through kubectl crd test, and against kube-apiserver in-process by a
// small runner here that does what the suite format says (create, status
// write, CRD patches, update, get), and compares the verdicts.
package crdtest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/test/cluster"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

var (
	testCluster *cluster.Cluster
	bin         *harness.Bin
	repoRoot    string
	// crdDirs hold the CRDs the suites test; suiteDirs the suites.
	crdDirs, suiteDirs []string
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
	crdDirs = []string{filepath.Join(repoRoot, "examples/crds"), filepath.Join(repoRoot, "test/testdata/crds"), filepath.Join(repoRoot, "test/testdata/suites/crds")}
	suiteDirs = []string{filepath.Join(repoRoot, "examples/tests"), filepath.Join(repoRoot, "test/testdata/suites")}
	var stop func()
	if bin, testCluster, stop, err = harness.Start(repoRoot); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	for _, dir := range crdDirs {
		if _, err := testCluster.LoadCRDs(context.Background(), dir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return m.Run()
}
