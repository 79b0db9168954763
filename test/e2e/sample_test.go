package e2e

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

// TestSamplesTheServerAccepts sends the minimal and the full sample of
// every served version of the test CRDs, and of pkg/sample's CRD that asks
// for every kind of value, to the server as dry-run creates: all must be
// accepted, and the sample's own verdict must be the server's.
func TestSamplesTheServerAccepts(t *testing.T) {
	hard := filepath.Join(repoRoot, "pkg/sample/testdata/hard.yaml")
	if _, err := testCluster.LoadCRDs(context.Background(), hard); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// The other tests know the cluster's CRDs: this one goes again.
		crds := apiextensionsclient.NewForConfigOrDie(testCluster.Config).ApiextensionsV1().CustomResourceDefinitions()
		ctx := context.Background()
		if err := crds.Delete(ctx, "puzzles.sample.example.com", metav1.DeleteOptions{}); err != nil {
			t.Error(err)
			return
		}
		err := wait.PollUntilContextTimeout(ctx, 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := crds.Get(ctx, "puzzles.sample.example.com", metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if err != nil {
			t.Errorf("the CRD is still there: %v", err)
		}
	})
	files, err := catalog.ReadFiles(append(crdDirs, hard), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	crds, err := files.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tally := harness.SampleAgainstServer(t, testCluster.Config, catalog.Definitions(crds))
	for _, full := range []bool{false, true} {
		t.Logf("full %v: the server accepts %d of %d samples", full, tally.Accepted[full], tally.Made[full])
		if tally.Accepted[full] != tally.Made[full] {
			t.Errorf("refused: %q", tally.Refusals)
		}
	}
}
