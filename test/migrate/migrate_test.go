// Package migrate tests kubectl crd migrate and list against the test
// cluster, with the server's own storage as the oracle: the apiVersion
// each object is stored at is read from the cluster's etcd. (It is a
// package of its own: the end-to-end suite checks that every other verb
// only reads.)
package migrate

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/migrate"
	"github.com/kubectl-crd/kubectl-crd/test/cluster"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

var (
	testCluster *cluster.Cluster
	bin         *harness.Bin
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	repoRoot, err := filepath.Abs("../..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	var stop func()
	if bin, testCluster, stop, err = harness.Start(repoRoot); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	return m.Run()
}

// fixture is one CRD of a test, graduating v1alpha1 to v1.
type fixture struct {
	t       *testing.T
	group   string
	objects dynamic.NamespaceableResourceInterface // at v1
	old     dynamic.NamespaceableResourceInterface // at v1alpha1
}

// newFixture creates a CRD things.GROUP, v1alpha1 the storage version and
// v1 served, whose v1 schema may carry rules.
func newFixture(t *testing.T, group string, rules apiextensionsv1.ValidationRules) *fixture {
	t.Helper()
	openAPI := func(rules apiextensionsv1.ValidationRules) *apiextensionsv1.CustomResourceValidation {
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
			Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", XValidations: rules,
				Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer"}, "frozen": {Type: "boolean"}}}}}}
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "things." + group, Labels: map[string]string{"suite": "migrate"}},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1alpha1", Served: true, Storage: true, Schema: openAPI(nil)},
				{Name: "v1", Served: true, Schema: openAPI(rules)},
			},
		},
	}
	if err := testCluster.CreateCRDs(context.Background(), crd); err != nil {
		t.Fatal(err)
	}
	client, err := dynamic.NewForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, group: group,
		objects: client.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: "things"}),
		old:     client.Resource(schema.GroupVersionResource{Group: group, Version: "v1alpha1", Resource: "things"})}
}

func (f *fixture) crdClient() *apiextensionsclient.Clientset {
	return apiextensionsclient.NewForConfigOrDie(testCluster.Config)
}

func (f *fixture) crd() *apiextensionsv1.CustomResourceDefinition {
	f.t.Helper()
	crd, err := f.crdClient().ApiextensionsV1().CustomResourceDefinitions().Get(context.Background(), "things."+f.group, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return crd
}

func (f *fixture) updateCRD(change func(*apiextensionsv1.CustomResourceDefinition)) error {
	crd := f.crd()
	change(crd)
	_, err := f.crdClient().ApiextensionsV1().CustomResourceDefinitions().Update(context.Background(), crd, metav1.UpdateOptions{})
	return err
}

// storeAtV1 makes v1 the storage version.
func (f *fixture) storeAtV1() {
	f.t.Helper()
	if err := f.updateCRD(func(c *apiextensionsv1.CustomResourceDefinition) {
		c.Spec.Versions[0].Storage, c.Spec.Versions[1].Storage = false, true
	}); err != nil {
		f.t.Fatal(err)
	}
	// The server stores new writes at v1 once its handler has the update.
	deadline := time.Now().Add(30 * time.Second)
	for !slicesContains(f.crd().Status.StoredVersions, "v1") && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// create creates things thing-FROM..TO-1 at version, spread over three
// namespaces; spec is each one's spec.
func (f *fixture) create(ri dynamic.NamespaceableResourceInterface, version string, from, to int, spec func(i int) map[string]any) {
	f.t.Helper()
	err := testCluster.CreateMany(context.Background(), from, to, func(i int) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": f.group + "/" + version, "kind": "Thing",
			"metadata": map[string]any{"name": fmt.Sprintf("thing-%04d", i), "namespace": fmt.Sprintf("ns-%d", i%3)},
			"spec":     spec(i),
		}}
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// stored counts the objects by the version etcd holds them at.
func (f *fixture) stored() map[string]int {
	f.t.Helper()
	versions, err := testCluster.StoredVersions(context.Background(), f.group, "things")
	if err != nil {
		f.t.Fatal(err)
	}
	out := map[string]int{}
	for _, v := range versions {
		out[v]++
	}
	return out
}

func (f *fixture) migrate(args ...string) (migrate.Result, harness.Result) {
	f.t.Helper()
	r := bin.Run(f.t, "kubectl-crd", nil, append([]string{"migrate", "things." + f.group, "-o", "json"}, args...)...)
	var res migrate.Result
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil && r.Code < 2 {
		f.t.Fatalf("exit %d, %v:\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	return res, r
}

func size(i int) map[string]any { return map[string]any{"size": int64(i)} }

// TestMigrate graduates v1alpha1 to v1: objects written at v1alpha1 in
// three namespaces, storage moved to v1, more written at v1; the dry runs
// change nothing; migrate (in pages of 100) rewrites the old ones, leaves
// the new ones, prunes storedVersions, and the server then takes the CRD
// without v1alpha1. list says so before and after; a second run finds
// everything unchanged.
func TestMigrate(t *testing.T) {
	f := newFixture(t, "graduate.example.com", nil)
	f.create(f.old, "v1alpha1", 0, 250, size)
	f.storeAtV1()
	f.create(f.objects, "v1", 250, 300, size)
	before := f.stored()
	if before["graduate.example.com/v1alpha1"] != 250 || before["graduate.example.com/v1"] != 50 {
		t.Fatalf("etcd holds %v; want 250 at v1alpha1 and 50 at v1", before)
	}
	checkList(t, f, 300, []string{"v1alpha1", "v1"}, true)

	for _, dry := range []string{"client", "server"} {
		res, r := f.migrate("--dry-run=" + dry)
		if r.Code != 0 || res.Objects != 300 || res.DryRun != dry || (dry == "server") != (res.Accepted == 300) || res.Rewritten != 0 {
			t.Errorf("--dry-run=%s: exit %d, %+v\n%s", dry, r.Code, res, r.Stderr)
		}
		if got := f.stored(); fmt.Sprint(got) != fmt.Sprint(before) || len(f.crd().Status.StoredVersions) != 2 {
			t.Errorf("--dry-run=%s changed etcd (%v) or storedVersions (%v)", dry, got, f.crd().Status.StoredVersions)
		}
	}
	plan := bin.Run(t, "kubectl-crd", nil, "migrate", "things.graduate.example.com", "--dry-run=client")
	for _, want := range []string{"300 objects to write back at v1 (dry run: nothing written)", "ns-0: 100", "storedVersions: [v1alpha1 v1], then [v1]"} {
		if !strings.Contains(plan.Stdout, want) {
			t.Errorf("--dry-run=client's plan lacks %q:\n%s", want, plan.Stdout)
		}
	}

	serverPlan := bin.Run(t, "kubectl-crd", nil, "migrate", "things.graduate.example.com", "--dry-run=server")
	if want := "300 objects sent to the server at v1 (dry run: nothing written): 300 accepted, 0 gone, 0 would fail"; !strings.Contains(serverPlan.Stdout, want) {
		t.Errorf("--dry-run=server says:\n%s\nwant %q", serverPlan.Stdout, want)
	}

	res, r := f.migrate("--chunk-size", "100")
	if r.Code != 0 || res.Rewritten != 250 || res.Unchanged != 50 || res.Gone != 0 || len(res.Failed) != 0 ||
		fmt.Sprint(res.StoredVersionsAfter) != "[v1]" {
		t.Fatalf("exit %d, %+v\n%s", r.Code, res, r.Stderr)
	}
	if got := f.stored(); got["graduate.example.com/v1"] != 300 || len(got) != 1 {
		t.Errorf("etcd after the migration: %v; want all 300 at v1", got)
	}
	if err := f.updateCRD(func(c *apiextensionsv1.CustomResourceDefinition) { c.Spec.Versions = c.Spec.Versions[1:] }); err != nil {
		t.Errorf("the server refuses the CRD without v1alpha1 after the migration: %v", err)
	}
	checkList(t, f, 300, []string{"v1"}, false)

	again, r := f.migrate()
	if r.Code != 0 || again.Unchanged != 300 || again.Rewritten != 0 {
		t.Errorf("a second run: exit %d, %+v", r.Code, again)
	}
}

// checkList checks what kubectl crd list says of the fixture's CRD,
// online and offline.
func checkList(t *testing.T, f *fixture, objects int, stored []string, migrationNeeded bool) {
	t.Helper()
	r := bin.Run(t, "kubectl-crd", nil, "list", "-l", "suite=migrate", "-o", "json")
	var list struct {
		Items []struct {
			Name            string
			StoredVersions  []string
			Objects         *int
			MigrationNeeded bool
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &list); err != nil {
		t.Fatalf("list -o json: %v\n%s%s", err, r.Stdout, r.Stderr)
	}
	found := false
	for _, it := range list.Items {
		if it.Name != "things."+f.group {
			continue
		}
		found = true
		if it.Objects == nil || *it.Objects != objects || fmt.Sprint(it.StoredVersions) != fmt.Sprint(stored) || it.MigrationNeeded != migrationNeeded {
			t.Errorf("list: %+v; want %d objects, stored %v, migration needed %v", it, objects, stored, migrationNeeded)
		}
	}
	if !found {
		t.Errorf("list -l suite=migrate does not list things.%s:\n%s", f.group, r.Stdout)
	}
	wide := bin.Run(t, "kubectl-crd", nil, "list", "things."+f.group, "-o", "wide", "--no-headers")
	if want := map[bool]string{true: " yes ", false: " no "}[migrationNeeded]; !strings.Contains(wide.Stdout, want) || !strings.Contains(wide.Stdout, fmt.Sprint(objects)) {
		t.Errorf("list -o wide: %q lacks %q or %d", wide.Stdout, want, objects)
	}

	// Offline, from the CRD as a file (as kept in a repository: no
	// creationTimestamp): objects and age unknown.
	crd := f.crd()
	crd.APIVersion, crd.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	crd.CreationTimestamp = metav1.Time{}
	data, err := yaml.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "crd.yaml")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	off := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "list", "--crds", file, "--no-headers")
	fields := strings.Fields(off.Stdout)
	if len(fields) < 9 || fields[6] != "-" || fields[len(fields)-1] != "<unknown>" || fields[7] != map[bool]string{true: "yes", false: "no"}[migrationNeeded] {
		t.Errorf("list offline: %q%s", off.Stdout, off.Stderr)
	}
}

// TestMigrateConversionBroken: a conversion webhook that cannot be reached
// stops the migration before any write (exit 2, the server's message).
func TestMigrateConversionBroken(t *testing.T) {
	f := newFixture(t, "webhook.example.com", nil)
	f.create(f.old, "v1alpha1", 0, 20, size)
	unreachable := "https://127.0.0.1:1/convert"
	if err := f.updateCRD(func(c *apiextensionsv1.CustomResourceDefinition) {
		c.Spec.Versions[0].Storage, c.Spec.Versions[1].Storage = false, true
		c.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
			Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"},
				ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &unreachable}}}
	}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	before := f.stored()
	_, r := f.migrate()
	if r.Code != 2 || !strings.Contains(r.Stderr, "cannot be read at the storage version, so nothing was written") || !strings.Contains(r.Stderr, "conversion") {
		t.Errorf("exit %d:\n%s", r.Code, r.Stderr)
	}
	if got := f.stored(); fmt.Sprint(got) != fmt.Sprint(before) || len(f.crd().Status.StoredVersions) != 2 {
		t.Errorf("something was written: etcd %v, storedVersions %v", got, f.crd().Status.StoredVersions)
	}
}

// TestMigrateRefused: an object the server refuses to rewrite (a
// transition rule of the new version holds even for an unchanged object)
// is named, exit 1, storedVersions is left alone, the others are migrated.
func TestMigrateRefused(t *testing.T) {
	f := newFixture(t, "refused.example.com", apiextensionsv1.ValidationRules{{Rule: "!has(self.frozen) || !self.frozen || self != oldSelf", Message: "frozen things must change"}})
	f.create(f.old, "v1alpha1", 0, 30, func(i int) map[string]any {
		return map[string]any{"size": int64(i), "frozen": i == 7}
	})
	f.storeAtV1()
	res, r := f.migrate()
	if r.Code != 1 || len(res.Failed) != 1 || res.Failed[0].Name != "thing-0007" || !strings.Contains(res.Failed[0].Message, "frozen things must change") ||
		res.Rewritten != 29 || res.NotPruned == "" {
		t.Errorf("exit %d, %+v", r.Code, res)
	}
	if got := f.stored(); got["refused.example.com/v1"] != 29 || got["refused.example.com/v1alpha1"] != 1 {
		t.Errorf("etcd: %v; want 29 at v1 and the refused one at v1alpha1", got)
	}
	if sv := f.crd().Status.StoredVersions; len(sv) != 2 {
		t.Errorf("storedVersions pruned to %v though an object failed", sv)
	}
	text := bin.Run(t, "kubectl-crd", nil, "migrate", "things.refused.example.com")
	if !strings.Contains(text.Stdout, "failed ns-1/thing-0007: ") || !strings.Contains(text.Stdout, "left as it was: 1 object could not be rewritten") {
		t.Errorf("text:\n%s", text.Stdout)
	}
}

// TestMigrateConcurrentWriter: another writer labels the objects while
// migrate runs; the conflicts are retried, and nothing of either is lost:
// every object ends at v1 with the label of the other writer's last
// successful write to it.
func TestMigrateConcurrentWriter(t *testing.T) {
	f := newFixture(t, "concurrent.example.com", nil)
	f.create(f.old, "v1alpha1", 0, 300, size)
	f.storeAtV1()
	ctx := context.Background()
	written := make([]string, 300) // the label of the last successful write
	var writes, failed atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Go(func() {
		for round := 0; ; round++ {
			for i := range 300 {
				select {
				case <-stop:
					return
				default:
				}
				ns := f.objects.Namespace(fmt.Sprintf("ns-%d", i%3))
				obj, err := ns.Get(ctx, fmt.Sprintf("thing-%04d", i), metav1.GetOptions{})
				if err != nil {
					failed.Add(1)
					continue
				}
				obj.SetLabels(map[string]string{"round": fmt.Sprint(round)})
				if _, err := ns.Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
					failed.Add(1)
					continue
				}
				written[i] = fmt.Sprint(round)
				writes.Add(1)
			}
		}
	})
	res, r := f.migrate("--concurrency", "8", "--chunk-size", "50")
	close(stop)
	wg.Wait()
	if r.Code != 0 || len(res.Failed) != 0 || res.Rewritten+res.Unchanged != 300 || fmt.Sprint(res.StoredVersionsAfter) != "[v1]" {
		t.Errorf("exit %d, %+v", r.Code, res)
	}
	if writes.Load() == 0 {
		t.Fatal("the other writer wrote nothing while migrate ran")
	}
	if got := f.stored(); got["concurrent.example.com/v1"] != 300 {
		t.Errorf("etcd: %v; want all 300 at v1", got)
	}
	list, err := f.objects.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lost := 0
	for _, o := range list.Items {
		var i int
		fmt.Sscanf(o.GetName(), "thing-%04d", &i)
		if o.GetLabels()["round"] != written[i] {
			lost++
		}
	}
	if lost != 0 {
		t.Errorf("%d of 300 objects lost the other writer's last write", lost)
	}
	t.Logf("migrated %+v beside another writer (%d writes, %d failed)", res, writes.Load(), failed.Load())
}

// TestMigrateExpiredContinue: the list's continue token expires (410) on
// the second page; the list starts again and every object is migrated
// once.
func TestMigrateExpiredContinue(t *testing.T) {
	f := newFixture(t, "expired.example.com", nil)
	f.create(f.old, "v1alpha1", 0, 120, size)
	f.storeAtV1()
	var expired atomic.Int64
	testCluster.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
		if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/apis/expired.example.com/v1/things") ||
			r.URL.Query().Get("continue") == "" || expired.Add(1) > 2 {
			return false
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusGone)
		fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Expired","code":410,"message":"The provided continue parameter is too old"}`)
		return true
	})
	defer testCluster.SetHook(nil)
	res, r := f.migrate("--chunk-size", "50")
	if r.Code != 0 || res.Objects != 120 || res.Rewritten != 120 || fmt.Sprint(res.StoredVersionsAfter) != "[v1]" || expired.Load() < 2 {
		t.Errorf("exit %d, %+v (%d expired pages)\n%s", r.Code, res, expired.Load(), r.Stderr)
	}
	if got := f.stored(); got["expired.example.com/v1"] != 120 {
		t.Errorf("etcd: %v", got)
	}
}

// TestMigrateRefusesCategories: a category is migrated only with --all.
func TestMigrateRefusesCategories(t *testing.T) {
	r := bin.Run(t, "kubectl-crd", nil, "migrate", "all")
	if r.Code != 2 || !strings.Contains(r.Stderr, `"all" is a category: migrating every CRD in it needs --all`) {
		t.Errorf("exit %d:\n%s", r.Code, r.Stderr)
	}
}

// TestGraduationExample runs docs/migrate.md's version graduation on
// examples/graduation: CRD at v1alpha1 and its objects; v1 made the
// storage version; list and diff say a migration is due; migrate; the
// server then takes the CRD without v1alpha1.
func TestGraduationExample(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("..", "..", "examples", "graduation")
	const name = "widgets.graduation.example.com"
	if _, err := testCluster.Load(ctx, filepath.Join(dir, "widgets-v1alpha1.yaml"), filepath.Join(dir, "widgets.yaml")); err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, group: "graduation.example.com"}
	apply := func(file string) error {
		data, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.UnmarshalStrict(data, &crd); err != nil {
			t.Fatal(err)
		}
		live, err := f.crdClient().ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		crd.ResourceVersion = live.ResourceVersion
		_, err = f.crdClient().ApiextensionsV1().CustomResourceDefinitions().Update(ctx, &crd, metav1.UpdateOptions{})
		return err
	}
	if err := apply("widgets-v1.yaml"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second) // the server's handler takes the new storage version

	list := bin.Run(t, "kubectl-crd", nil, "list", name, "--no-headers")
	if fields := strings.Fields(list.Stdout); len(fields) < 8 || fields[3] != "v1alpha1,v1*" || fields[4] != "v1alpha1,v1" || fields[6] != "3" || fields[7] != "yes" {
		t.Errorf("list before: %q%s", list.Stdout, list.Stderr)
	}
	d := bin.Run(t, "kubectl-crd", nil, "diff", "-f", filepath.Join(dir, "widgets-v1-only.yaml"))
	if d.Code != 1 || !strings.Contains(d.Stdout, "[stored-version-removed]") || !strings.Contains(d.Stdout, "kubectl crd migrate "+name) {
		t.Errorf("diff: exit %d\n%s%s", d.Code, d.Stdout, d.Stderr)
	}
	if err := apply("widgets-v1-only.yaml"); err == nil || !strings.Contains(err.Error(), "must remain in spec.versions until a storage migration") {
		t.Errorf("before the migration the server should refuse the CRD without v1alpha1; it said %v", err)
	}
	m := bin.Run(t, "kubectl-crd", nil, "migrate", "widgets.graduation.example.com")
	if m.Code != 0 || !strings.Contains(m.Stdout, "3 objects migrated to v1: 3 rewritten") || !strings.Contains(m.Stdout, "storedVersions [v1alpha1 v1] is now [v1]") {
		t.Errorf("migrate: exit %d\n%s%s", m.Code, m.Stdout, m.Stderr)
	}
	stored, err := testCluster.StoredVersions(ctx, "graduation.example.com", "widgets")
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 3 || stored["default/small"] != "graduation.example.com/v1" || stored["default/medium"] != "graduation.example.com/v1" || stored["default/large"] != "graduation.example.com/v1" {
		t.Errorf("etcd after the migration: %v; want the three widgets at v1", stored)
	}
	list = bin.Run(t, "kubectl-crd", nil, "list", name, "--no-headers")
	if fields := strings.Fields(list.Stdout); len(fields) < 8 || fields[4] != "v1" || fields[7] != "no" {
		t.Errorf("list after: %q%s", list.Stdout, list.Stderr)
	}
	if err := apply("widgets-v1-only.yaml"); err != nil {
		t.Errorf("after the migration the server refuses the CRD without v1alpha1: %v", err)
	}
}
