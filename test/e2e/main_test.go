// Package e2e runs kubectl crd against the in-process API server: in
// process (to compare with kubectl's own packages) and as the built binary,
// directly and through kubectl's plugin mechanism.
package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/test/cluster"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

var (
	testCluster *cluster.Cluster
	bin         *harness.Bin
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
	if _, err := testCluster.LoadCRDs(context.Background(), crdDirs...); err != nil {
		fmt.Fprintf(os.Stderr, "loading CRDs: %v\n", err)
		return 1
	}
	if _, err := testCluster.Load(context.Background(), objectDir); err != nil {
		fmt.Fprintf(os.Stderr, "loading objects: %v\n", err)
		return 1
	}
	code := m.Run()
	if err := noToken(testCluster.Token, bin.Outputs()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// And the whole suite once more at -v=9, where client-go logs every
	// request with its headers and every response.
	n, outputs := bin.Replay("-v=9", 10*time.Second)
	if err := noToken(testCluster.Token, outputs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	headers := strings.Count(strings.Join(outputs, ""), "Authorization: Bearer <masked>")
	if headers == 0 {
		fmt.Fprintln(os.Stderr, "secrets: the suite at -v=9 logged no masked Authorization header; the check would prove nothing")
		return 1
	}
	fmt.Printf("secrets: %d commands of the suite again at -v=9: %d masked Authorization headers, no token\n", n, headers)
	if err := readOnly(testCluster); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return code
}

// readOnly checks that kubectl crd (its user agent is the binary's name)
// sent only GET requests to the cluster during the whole suite: reads,
// lists, watches, discovery and OpenAPI.
func readOnly(c *cluster.Cluster) error {
	methods := c.RequestsByAgent()["kubectl-crd"]
	total := 0
	for m, n := range methods {
		total += n
		if m != "GET" {
			return fmt.Errorf("read-only: kubectl crd sent %d %s requests (all: %v)", n, m, methods)
		}
	}
	if total == 0 {
		return fmt.Errorf("read-only: no request of kubectl crd was seen; is its user agent still kubectl-crd?")
	}
	fmt.Printf("read-only: kubectl crd sent %d requests during the suite, all GET\n", total)
	return nil
}

// noToken searches the output of every kubectl crd command of the suite
// (those at -v=9 among them) for the kubeconfig's token.
func noToken(token string, outputs []string) error {
	for _, out := range outputs {
		if strings.Contains(out, token) {
			return fmt.Errorf("secrets: the kubeconfig's token appears in the output of a kubectl crd command")
		}
	}
	fmt.Printf("secrets: the token is in none of the %d outputs of kubectl crd during the suite\n", len(outputs))
	return nil
}
