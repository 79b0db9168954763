// Package kubeversion compares kubectl crd's answers as each Kubernetes
// version it can answer as with those of kube-apiserver emulating that
// version (--emulated-version), over one etcd that a newer server filled:
// a cluster downgraded one version at a time.
package kubeversion

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/kubectl-crd/kubectl-crd/test/cluster"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
)

var (
	bin      *harness.Bin
	repoRoot string
	data     string // test/testdata/kubeversion
)

func TestMain(m *testing.M) {
	var err error
	if repoRoot, err = filepath.Abs("../.."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	data = filepath.Join(repoRoot, "test/testdata/kubeversion")
	if bin, err = harness.Build(repoRoot); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	bin.Remove()
	os.Exit(code)
}

// TestValidateAsEachVersion fills etcd with the newest server (a CRD whose
// rule and format are 1.34's, objects), then, for each version from the
// oldest kubectl crd answers as to the newest, starts kube-apiserver
// emulating it over that etcd and compares, object by object, the
// verdict and the (field, type) set of kubectl crd validate with the
// server's dry-run create or update (kubectl apply's patch): online with
// the version read from the cluster, online with --kubernetes-version,
// and offline with --kubernetes-version (creates). It also compares the
// built-in kinds taken as served by default with the server's discovery.
// The answers must differ between versions, or the test shows nothing.
func TestValidateAsEachVersion(t *testing.T) {
	dir := t.TempDir()
	c, err := cluster.Start(cluster.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Load(context.Background(), filepath.Join(data, "live.yaml"))
	c.Stop()
	if err != nil {
		t.Fatal(err)
	}
	files := []string{filepath.Join(data, "creates.yaml"), filepath.Join(data, "updates.yaml"), filepath.Join(data, "newrule.yaml")}
	docs, err := manifest.ReadPaths(files, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	creates, err := manifest.ReadPaths(files[:1], false, nil)
	if err != nil {
		t.Fatal(err)
	}

	oldest, newest := kubeversion.Range()
	verdicts := map[string]string{} // version -> the server's verdicts, in order
	for v := oldest; !v.GreaterThan(newest); v = v.AddMinor(1) {
		t.Run(v.String(), func(t *testing.T) {
			c, err := cluster.Start(cluster.Options{Dir: dir, EmulatedVersion: v.String()})
			if err != nil {
				t.Fatal(err)
			}
			defer c.Stop()
			bin.Kubeconfig = c.Kubeconfig
			waitForGadgets(t, c)
			server, err := harness.NewDryRunner(c.Config)
			if err != nil {
				t.Fatal(err)
			}
			want := make([][]string, len(docs))
			for i, d := range docs {
				operation := "create"
				if i >= len(creates) {
					operation = "update"
				}
				want[i] = harness.ServerCauses(server.Run(t, d.JSON, operation))
				verdicts[v.String()] += fmt.Sprintf("%d:%v ", i, want[i] == nil)
			}
			// One run per file: newrule.yaml updates the CRD updates.yaml
			// updates too.
			type run struct {
				name  string
				args  []string
				first int // the index in docs of the run's first document
			}
			var runs []run
			first := 0
			for i, f := range files {
				runs = append(runs,
					run{"online, the cluster's version", []string{"validate", "-o", "json", "-f", f}, first},
					run{"online, --kubernetes-version", []string{"--kubernetes-version", v.String(), "validate", "-o", "json", "-f", f}, first})
				if i == 0 {
					runs = append(runs, run{"offline, --kubernetes-version", []string{"--kubernetes-version", v.String(), "--crds", filepath.Join(data, "live.yaml"), "validate", "-o", "json", "-f", f}, first})
				}
				n, err := manifest.ReadPaths([]string{f}, false, nil)
				if err != nil {
					t.Fatal(err)
				}
				first += len(n)
			}
			checked := 0
			for _, r := range runs {
				report := validateReport(t, r.args)
				if report.KubernetesVersion != v.String() {
					t.Errorf("%s: the report says Kubernetes %q, want %s", r.name, report.KubernetesVersion, v)
				}
				for j, res := range report.Results {
					i := r.first + j
					if got := harness.Causes(res); fmt.Sprint(got) != fmt.Sprint(want[i]) {
						t.Errorf("%s: %s %s/%s (%s): kubectl crd %q, server %q", r.name, res.Operation, res.Kind, res.Name, docs[i].Pos(), got, want[i])
					}
					checked++
				}
			}
			if checked != 2*len(docs)+len(creates) {
				t.Errorf("%d results checked, want %d", checked, 2*len(docs)+len(creates))
			}
			compareDiscovery(t, c)
		})
	}
	distinct := map[string]bool{}
	for _, s := range verdicts {
		distinct[s] = true
	}
	for v := oldest; !v.GreaterThan(newest); v = v.AddMinor(1) {
		t.Logf("as %s, the server accepts (document:accepted) %s", v, verdicts[v.String()])
	}
	if len(distinct) < len(verdicts) {
		t.Errorf("the server's verdicts take %d forms over %d versions; the cases do not tell versions apart: %v", len(distinct), len(verdicts), verdicts)
	}
}

// validateReport runs kubectl crd with args and decodes its JSON report.
func validateReport(t *testing.T, args []string) validate.Report {
	t.Helper()
	r := bin.Run(t, "kubectl-crd", nil, args...)
	var report validate.Report
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil {
		t.Fatalf("kubectl crd %v: exit %d: %v\n%s%s", args, r.Code, err, r.Stdout, r.Stderr)
	}
	return report
}

// waitForGadgets waits until the restarted server serves the CRD etcd
// holds.
func waitForGadgets(t *testing.T, c *cluster.Cluster) {
	dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	err = wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		list, err := dc.ServerResourcesForGroupVersion("kv.example.com/v1")
		return err == nil && len(list.APIResources) > 0, nil
	})
	if err != nil {
		t.Fatalf("the Gadget CRD is not served: %v", err)
	}
}

// compareDiscovery compares the built-in kinds taken as served by default
// when answering as the version the cluster emulates (the test process's
// registry is the server's) with the kinds the server's discovery lists.
func compareDiscovery(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(c.Config)
	if err != nil {
		t.Fatal(err)
	}
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	kinds, err := builtin.New(kubeversion.Current(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	served := map[schema.GroupVersionKind]bool{}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range list.APIResources {
			if strings.Contains(r.Name, "/") || gv.Group == "apiextensions.k8s.io" || strings.HasSuffix(gv.Group, ".example.com") {
				continue
			}
			gvk := gv.WithKind(r.Kind)
			served[gvk] = true
			var unchecked *builtin.UncheckedError
			if _, err := kinds.Lookup(gvk); err != nil && !errors.As(err, &unchecked) {
				t.Errorf("%s is served, but %v", gvk, err)
			}
		}
	}
	defaults := kinds.Defaults()
	for _, gvk := range defaults {
		if !served[gvk] {
			t.Errorf("%s is taken as served, but the server does not serve it", gvk)
		}
	}
	if !slices.ContainsFunc(defaults, func(gvk schema.GroupVersionKind) bool { return gvk.Kind == "Pod" }) {
		t.Errorf("no Pod among the defaults: %v", defaults)
	}
}
