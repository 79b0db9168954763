package bench

import (
	"context"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var (
	migrateOnce    sync.Once
	migrateStorage = "v1alpha1" // the storage version of BenchmarkMigrate's CRD
)

// BenchmarkMigrate moves 3,000 objects (in three namespaces) to a new
// storage version, alternating kubectl crd migrate with the way a user
// would do it by hand, kubectl get -A -o json | kubectl replace -f -
// (which writes the objects, but neither checks conversion first nor
// prunes storedVersions). The test cluster serves no core group, so
// kubectl replace cannot map a v1 List; kubectl get prints the items one
// JSON document each instead, the same objects in the same order. Before each run the storage version flips
// between v1alpha1 and v1, so that every run rewrites every object.
func BenchmarkMigrate(b *testing.B) {
	ctx := context.Background()
	crds := apiextensionsclient.NewForConfigOrDie(testCluster.Config).ApiextensionsV1().CustomResourceDefinitions()
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object",
			Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer"}, "note": {Type: "string"}}}}}}
	const name = "things.migrate.bench.example.com"
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "migrate.bench.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1alpha1", Served: true, Storage: true, Schema: schema},
				{Name: "v1", Served: true, Schema: schema},
			},
		},
	}
	migrateOnce.Do(func() {
		if err := testCluster.CreateCRDs(ctx, crd); err != nil {
			b.Fatal(err)
		}
		if err := testCluster.CreateMany(ctx, 0, objects, func(i int) *unstructured.Unstructured {
			return &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "migrate.bench.example.com/v1alpha1", "kind": "Thing",
				"metadata": map[string]any{"name": fmt.Sprintf("thing-%05d", i), "namespace": fmt.Sprintf("ns-%d", i%3),
					"labels": map[string]any{"app": "bench"}},
				"spec": map[string]any{"size": int64(i), "note": strings.Repeat("x", 200)},
			}}
		}); err != nil {
			b.Fatal(err)
		}
	})

	// flip makes the other version the storage version and waits until the
	// server stores new writes at it.
	flip := func() {
		migrateStorage = map[string]string{"v1alpha1": "v1", "v1": "v1alpha1"}[migrateStorage]
		storage := migrateStorage
		c, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		for i := range c.Spec.Versions {
			c.Spec.Versions[i].Storage = c.Spec.Versions[i].Name == storage
		}
		if _, err := crds.Update(ctx, c, metav1.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if c, err := crds.Get(ctx, name, metav1.GetOptions{}); err == nil && slices.Contains(c.Status.StoredVersions, storage) {
				break
			}
		}
		time.Sleep(time.Second)
	}
	countAt := func(version string) int {
		stored, err := testCluster.StoredVersions(ctx, "migrate.bench.example.com", "things")
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, v := range stored {
			if v == "migrate.bench.example.com/"+version {
				n++
			}
		}
		return n
	}
	byHand := func() time.Duration {
		cmd := exec.Command("/bin/sh", "-c", "kubectl get "+name+` -A -o jsonpath='{range .items[*]}{@}{"\n"}{end}' | kubectl replace -f - >/dev/null`)
		cmd.Env = []string{"KUBECONFIG=" + testCluster.Kubeconfig, "HOME=" + b.TempDir(), "PATH=" + bin.Dir + ":/usr/bin:/bin"}
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("kubectl get | kubectl replace: %v\n%s", err, out)
		}
		return time.Since(start)
	}

	var plugin, kubectl []time.Duration
	var pluginRSS int64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		flip()
		b.StartTimer()
		s := runOnce(b, "kubectl-crd", i == 0, "migrate", name)
		plugin = append(plugin, s.wall)
		pluginRSS = max(pluginRSS, s.maxRSS)
		b.StopTimer()
		if n := countAt(migrateStorage); n != objects {
			b.Fatalf("after kubectl crd migrate, %d of %d objects are stored at %s", n, objects, migrateStorage)
		}
		flip()
		b.StartTimer()
		kubectl = append(kubectl, byHand())
		b.StopTimer()
		if n := countAt(migrateStorage); n != objects {
			b.Fatalf("after kubectl replace, %d of %d objects are stored at %s", n, objects, migrateStorage)
		}
		b.StartTimer()
	}
	b.StopTimer()
	pm, km := median(plugin), median(kubectl)
	b.ReportMetric(float64(pm.Milliseconds()), "kubectl-crd-ms")
	b.ReportMetric(float64(km.Milliseconds()), "kubectl-get-replace-ms")
	b.ReportMetric(float64(pm)/float64(km), "ratio")
	b.ReportMetric(float64(pluginRSS)/1024, "kubectl-crd-maxRSS-MiB")
}
