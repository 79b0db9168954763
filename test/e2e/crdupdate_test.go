package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestValidateCRDUpdatesMatchServer creates each old CRD of
// test/testdata/crdupdates in the test cluster (and moves its
// storedVersions where the case says so), then checks the new CRD with
// kubectl crd validate online and offline (--old old.yaml), and sends it
// to the server as kubectl apply's dry-run patch with strict field
// validation: the verdict and the (field, type) causes must be the
// server's, both ways.
func TestValidateCRDUpdatesMatchServer(t *testing.T) {
	ctx := context.Background()
	root := filepath.Join(repoRoot, "test/testdata/crdupdates")
	cases, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	server, err := harness.NewDryRunner(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	crdClient := apiextensionsclient.NewForConfigOrDie(testCluster.Config).ApiextensionsV1().CustomResourceDefinitions()
	refused := 0
	for _, c := range cases {
		dir := filepath.Join(root, c.Name())
		t.Run(c.Name(), func(t *testing.T) {
			old, newCRD := filepath.Join(dir, "old.yaml"), filepath.Join(dir, "new.yaml")
			if _, err := testCluster.LoadCRDs(ctx, old); err != nil {
				t.Fatal(err)
			}
			if stored, err := os.ReadFile(filepath.Join(dir, "stored-versions")); err == nil {
				docs, err := manifest.ReadFile(old)
				if err != nil {
					t.Fatal(err)
				}
				crd, err := catalog.DecodeCRD(&docs[0])
				if err != nil {
					t.Fatal(err)
				}
				live, err := crdClient.Get(ctx, crd.Name, metav1.GetOptions{})
				if err != nil {
					t.Fatal(err)
				}
				live.Status.StoredVersions = strings.Split(strings.TrimSpace(string(stored)), ",")
				if _, err := crdClient.UpdateStatus(ctx, live, metav1.UpdateOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			docs, err := manifest.ReadFile(newCRD)
			if err != nil {
				t.Fatal(err)
			}
			var want [][]string
			for _, d := range docs {
				want = append(want, harness.ServerCauses(server.Run(t, d.JSON, "update")))
			}
			for name, args := range map[string][]string{
				"online":       {"validate", "-o", "json", "-f", newCRD},
				"offline, old": {"validate", "-o", "json", "--offline", "-f", newCRD, "--old", old},
			} {
				r := bin.Run(t, "kubectl-crd", nil, args...)
				var report validate.Report
				if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil || len(report.Results) != len(docs) {
					t.Fatalf("%s: exit %d, %v\n%s%s", name, r.Code, err, r.Stdout, r.Stderr)
				}
				for i, res := range report.Results {
					if res.Operation != "update" {
						t.Errorf("%s: checked as a %s", name, res.Operation)
					}
					if got := harness.Causes(res); fmt.Sprint(got) != fmt.Sprint(want[i]) {
						t.Errorf("%s: kubectl crd validate %q\nserver dry-run update %q", name, got, want[i])
					}
				}
			}
			if len(want[0]) > 0 {
				refused++
			}
			t.Logf("server: %q", want[0])
		})
	}
	if refused == 0 || refused == len(cases) {
		t.Errorf("%d of %d upgrades refused: the cases should have both kinds", refused, len(cases))
	}
}
