package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// builtInKinds are the kinds the differential test must cover, each with a
// valid and an invalid object.
var builtInKinds = []string{"Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob", "Pod", "Service",
	"ConfigMap", "Secret", "ServiceAccount", "Namespace", "Ingress", "IngressClass", "NetworkPolicy", "Role", "RoleBinding",
	"ClusterRole", "ClusterRoleBinding", "PodDisruptionBudget", "HorizontalPodAutoscaler", "PersistentVolumeClaim",
	"PersistentVolume", "StorageClass", "PriorityClass", "ResourceQuota", "LimitRange", "ValidatingAdmissionPolicy", "APIService"}

// TestValidateBuiltInMatchesServerDryRun runs kubectl crd validate -o json
// online over objects of kube-apiserver's own kinds, creates and updates of
// live objects, and compares each result with the server's: a dry-run
// create, or the dry-run patch kubectl apply sends (kubectl's own apply
// code), with strict field validation. The verdict and the (field, type)
// set, or the message of a body the server cannot decode, must be equal.
func TestValidateBuiltInMatchesServerDryRun(t *testing.T) {
	dir := filepath.Join(repoRoot, "test/testdata/builtin")
	if _, err := testCluster.Load(context.Background(), filepath.Join(dir, "live.yaml")); err != nil {
		t.Fatal(err)
	}
	paths := []string{filepath.Join(dir, "creates.yaml"), filepath.Join(dir, "updates.yaml")}
	results := validateJSON(t, paths...)
	docs, err := manifest.ReadPaths(paths, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(results) {
		t.Fatalf("%d documents, %d results", len(docs), len(results))
	}
	server, err := harness.NewDryRunner(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]map[string]int{} // kind -> status -> count
	operations := map[string]int{}
	agree := 0
	for i, res := range results {
		d := docs[i]
		t.Run(d.Pos(), func(t *testing.T) {
			if res.Status == "skipped" || res.Status == "error" {
				t.Fatalf("%s: %s", res.Status, res.Reason)
			}
			got := harness.Causes(res)
			want := harness.ServerCauses(server.Run(t, d.JSON, res.Operation))
			if fmt.Sprint(got) == fmt.Sprint(want) {
				agree++
				return
			}
			t.Errorf("%s %s/%s: kubectl crd validate %q\nserver %q", res.Operation, res.Kind, res.Name, got, want)
		})
		if verdicts[res.Kind] == nil {
			verdicts[res.Kind] = map[string]int{}
		}
		verdicts[res.Kind][string(res.Status)]++
		operations[res.Operation]++
	}
	for _, kind := range builtInKinds {
		if verdicts[kind]["valid"] == 0 || verdicts[kind]["invalid"] == 0 {
			t.Errorf("%s: %v, want valid and invalid objects", kind, verdicts[kind])
		}
	}
	if operations["update"] < 16 {
		t.Errorf("operations %v: want the 16 objects of updates.yaml checked as updates", operations)
	}
	t.Logf("%d objects of %d kinds (%v): verdict and causes as the server's on %d",
		len(results), len(verdicts), operations, agree)
}

// validateJSON runs kubectl crd validate -o json -R online on paths.
func validateJSON(t *testing.T, paths ...string) []validate.ObjectResult {
	t.Helper()
	args := []string{"validate", "-o", "json", "-R"}
	for _, p := range paths {
		args = append(args, "-f", p)
	}
	r := bin.Run(t, "kubectl-crd", nil, args...)
	var report validate.Report
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	return report.Results
}

// TestBuiltInKindsMatchDiscovery compares the kinds kubectl crd checks as
// kube-apiserver's own with what the test cluster, a kube-apiserver with
// its default configuration, serves: every kind at every version its
// discovery lists (but custom resources and CRDs) is known, and nothing
// else.
func TestBuiltInKindsMatchDiscovery(t *testing.T) {
	dc, err := discovery.NewDiscoveryClientForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	custom := customResources(t)
	kinds, err := builtin.New(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var served []schema.GroupVersionKind
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || custom[schema.GroupResource{Group: gv.Group, Resource: r.Name}.String()] ||
				gv.Group == "apiextensions.k8s.io" {
				continue
			}
			gvk := gv.WithKind(r.Kind)
			served = append(served, gvk)
			found, err := kinds.Lookup(gvk)
			var unchecked *builtin.UncheckedError
			switch {
			case found != nil:
				if found.Namespaced() != r.Namespaced || found.Resource.Resource != r.Name {
					t.Errorf("%s: resource %s, namespaced %v; the server's %s, %v", gvk, found.Resource.Resource, found.Namespaced(), r.Name, r.Namespaced)
				}
				if !slices.Contains(r.Verbs, "create") {
					t.Errorf("%s is checked, but the server does not create it", gvk)
				}
			case errors.As(err, &unchecked):
				if slices.Contains(r.Verbs, "update") {
					t.Errorf("%s is stored by the server, but not checked", gvk)
				}
			default:
				t.Errorf("%s is served, but %v, %v", gvk, found, err)
			}
		}
	}
	for _, gvk := range kinds.Defaults() {
		if !slices.Contains(served, gvk) {
			t.Errorf("%s is taken as served by default, but the server does not serve it", gvk)
		}
	}
	t.Logf("%d kinds at their versions, as the server serves them", len(served))
}
