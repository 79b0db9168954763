package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// TestListOfflineMatchesOnline: kubectl crd list over the cluster's CRDs
// saved to a file, as kubectl get crd -o yaml saves them (status and
// creation time included), says what list says of the cluster, where it
// reads the whole CRDs the server returns; offline it reads outlines. Only
// the object counts, which need the cluster, differ.
func TestListOfflineMatchesOnline(t *testing.T) {
	crds, err := apiextensionsclient.NewForConfigOrDie(testCluster.Config).ApiextensionsV1().CustomResourceDefinitions().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var saved strings.Builder
	for i := range crds.Items {
		crd := &crds.Items[i]
		crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
		data, err := yaml.Marshal(crd)
		if err != nil {
			t.Fatal(err)
		}
		saved.WriteString("---\n")
		saved.Write(data)
	}
	file := filepath.Join(t.TempDir(), "crds.yaml")
	writeFile(t, file, saved.String())

	items := func(r harness.Result) []map[string]any {
		t.Helper()
		var list struct{ Items []map[string]any }
		if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &list) != nil {
			t.Fatalf("list -o json: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		for _, it := range list.Items {
			delete(it, "objects")
		}
		return list.Items
	}
	online := items(bin.Run(t, "kubectl-crd", nil, "list", "-o", "json"))
	offline := items(bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "list", "--crds", file, "-o", "json"))
	if len(online) != len(crds.Items) || len(online) < 5 {
		t.Fatalf("list shows %d CRDs of the cluster's %d", len(online), len(crds.Items))
	}
	if !reflect.DeepEqual(offline, online) {
		for i := range online {
			if i < len(offline) && !reflect.DeepEqual(offline[i], online[i]) {
				t.Errorf("offline %v\nonline  %v", offline[i], online[i])
			}
		}
		t.Fatalf("list of the saved CRDs (%d) differs from list of the cluster (%d)", len(offline), len(online))
	}
}
