// Package scale measures kubectl crd against a cluster holding 10,000 and
// then 100,000 custom resources of one kind: list, get -o wide (beside
// kubectl get), diff's scan of every stored object, and migrate (beside
// kubectl get -o json | kubectl replace -f -), time and peak memory of
// each. It is a benchmark, not a test CI runs: set KUBECTL_CRD_SCALE=1
// (it takes about half an hour on two cores); KUBECTL_CRD_SCALE_RUN=diff
// (a regular expression) measures only the commands it matches.
package scale

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/test/cluster"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

const group = "scale.example.com"

// thingsCRD is the CRD measured: v1alpha1 and v1 served, printer
// columns; strict makes the new CRD diff compares (a maximum on size that
// 99 objects in 1,000 exceed).
func thingsCRD(storage string, strict bool) *apiextensionsv1.CustomResourceDefinition {
	size := apiextensionsv1.JSONSchemaProps{Type: "integer"}
	if strict {
		size.Maximum = ptr.To(900.0)
	}
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"size": size, "owner": {Type: "string"}, "tags": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
		}}}}}
	columns := []apiextensionsv1.CustomResourceColumnDefinition{
		{Name: "Size", Type: "integer", JSONPath: ".spec.size"},
		{Name: "Owner", Type: "string", JSONPath: ".spec.owner"},
		{Name: "Tags", Type: "string", JSONPath: ".spec.tags", Priority: 1},
	}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "things." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1alpha1", Served: true, Storage: storage == "v1alpha1", Schema: schema, AdditionalPrinterColumns: columns},
				{Name: "v1", Served: true, Storage: storage == "v1", Schema: schema, AdditionalPrinterColumns: columns},
			}},
	}
}

func TestScale(t *testing.T) {
	if os.Getenv("KUBECTL_CRD_SCALE") == "" {
		t.Skip("a benchmark: set KUBECTL_CRD_SCALE=1 to run it")
	}
	repoRoot, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin, c, stop, err := harness.Start(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if err := bin.BuildKubectl(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := c.CreateCRDs(ctx, thingsCRD("v1alpha1", false)); err != nil {
		t.Fatal(err)
	}
	newCRD := filepath.Join(t.TempDir(), "things.yaml")
	data, err := yaml.Marshal(thingsCRD("v1alpha1", true))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(newCRD, data, 0o644); err != nil {
		t.Fatal(err)
	}
	harness.RunTimeout = time.Hour
	created := 0
	var table []string
	for _, n := range []int{10000, 100000} {
		start := time.Now()
		createThings(t, c, created, n)
		t.Logf("%d objects created in %v", n-created, time.Since(start).Round(time.Second))
		created = n

		only := regexp.MustCompile(os.Getenv("KUBECTL_CRD_SCALE_RUN"))
		measure := func(what string, r harness.Result) {
			table = append(table, fmt.Sprintf("| %d | %s | %.1f s | %d MiB | %d |", n, what, r.Elapsed.Seconds(), r.PeakRSS>>20, r.Code))
			t.Log(table[len(table)-1])
			if r.Code > 1 {
				t.Errorf("%s: exit %d\n%s", what, r.Code, tail(r.Stderr))
			}
		}
		if only.MatchString("list") {
			r := bin.Run(t, "kubectl-crd", nil, "list", "things."+group)
			measure("kubectl crd list", r)
			if !strings.Contains(r.Stdout, fmt.Sprint(n)) {
				t.Errorf("list does not count %d objects:\n%s", n, r.Stdout)
			}
		}
		if only.MatchString("get") {
			r := bin.Run(t, "kubectl-crd", nil, "get", "things", "-A", "-o", "wide")
			measure("kubectl crd get -A -o wide", r)
			k := bin.Run(t, "kubectl", nil, "get", "things."+group, "-A", "-o", "wide")
			measure("kubectl get -A -o wide", k)
			if lines(r.Stdout) != n+1 || lines(k.Stdout) != n+1 {
				t.Errorf("get printed %d lines, kubectl %d; want %d", lines(r.Stdout), lines(k.Stdout), n+1)
			}
		}
		if only.MatchString("diff") {
			r := bin.Run(t, "kubectl-crd", nil, "diff", "-f", newCRD, "-o", "json")
			measure("kubectl crd diff (scan of every object)", r)
			// (The objects over the new maximum are not refused: an
			// unchanged field is ratcheted on update.)
			if want := fmt.Sprintf(`"checked": %d`, n); strings.Count(r.Stdout, want) != 2 {
				_, summary, _ := strings.Cut(r.Stdout, `"summary"`)
				t.Errorf("diff did not check the %d objects at both versions: summary%s", n, summary)
			}
		}
		if !only.MatchString("migrate") {
			continue
		}
		setStorage(t, c, "v1")
		r := bin.Run(t, "kubectl-crd", nil, "migrate", "things."+group, "--concurrency", "8")
		measure("kubectl crd migrate --concurrency 8", r)
		if r.Code != 0 {
			t.Errorf("migrate: %s", tail(r.Stdout+r.Stderr))
		}
		// The same work for kubectl: every object rewritten, back at
		// v1alpha1.
		setStorage(t, c, "v1alpha1")
		measure("kubectl get -o json | kubectl replace -f -", pipeline(t, bin, "kubectl get things."+group+" -A -o json | kubectl replace -f - > /dev/null"))
	}
	t.Logf("\n| objects | command | time | peak memory | exit |\n| --- | --- | --- | --- | --- |\n%s", strings.Join(table, "\n"))
}

// createThings creates things from to to-1 at v1alpha1, in 20
// namespaces.
func createThings(t *testing.T, c *cluster.Cluster, from, to int) {
	t.Helper()
	err := c.CreateMany(context.Background(), from, to, func(i int) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": group + "/v1alpha1", "kind": "Thing",
			"metadata": map[string]any{"name": fmt.Sprintf("thing-%06d", i), "namespace": fmt.Sprintf("ns-%02d", i%20),
				"labels": map[string]any{"team": fmt.Sprintf("team-%d", i%7)}},
			"spec": map[string]any{"size": int64(i % 1000), "owner": fmt.Sprintf("owner-%d", i%13), "tags": []any{"a", "b", fmt.Sprint(i)}},
		}}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// setStorage makes version the storage version.
func setStorage(t *testing.T, c *cluster.Cluster, version string) {
	t.Helper()
	client := apiextensionsclient.NewForConfigOrDie(c.Config).ApiextensionsV1().CustomResourceDefinitions()
	crd, err := client.Get(context.Background(), "things."+group, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range crd.Spec.Versions {
		crd.Spec.Versions[i].Storage = crd.Spec.Versions[i].Name == version
	}
	if _, err := client.Update(context.Background(), crd, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// pipeline runs a shell pipeline of the built binaries; its peak memory is
// that of its largest process.
func pipeline(t *testing.T, bin *harness.Bin, script string) harness.Result {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = []string{"PATH=" + bin.Dir + ":/usr/bin:/bin", "HOME=" + t.TempDir(), "KUBECONFIG=" + bin.Kubeconfig}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	r := harness.Result{Stderr: stderr.String(), Elapsed: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.Code = ee.ExitCode()
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.PeakRSS = ru.Maxrss << 10 // KiB on Linux
	}
	return r
}

func lines(s string) int { return strings.Count(s, "\n") }

func tail(s string) string {
	if len(s) > 600 {
		return "..." + s[len(s)-600:]
	}
	return s
}
