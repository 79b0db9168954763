package e2e

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// serversCRD is a CRD whose server field gains a required field: loose,
// the CRD the objects were stored under; else the one they are updated
// under.
func serversCRD(loose bool) *apiextensionsv1.CustomResourceDefinition {
	keep := true
	server := apiextensionsv1.JSONSchemaProps{Type: "object", Required: []string{"active"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"active":      {Type: "integer"},
		"annotations": {Type: "object", Nullable: true, XPreserveUnknownFields: &keep},
		"placement":   {Type: "object", Nullable: true, XPreserveUnknownFields: &keep},
		"labels":      {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
	}}
	if loose {
		server.Required = nil
	}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "servers.ratchet.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "ratchet.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "servers", Singular: "server", Kind: "Server", ListKind: "ServerList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"server": server}}}}}}},
		},
	}
}

// TestUpdatesMatchServer stores objects under a loose CRD, tightens it,
// then checks each object's file as an update of the stored object, both
// as kubectl apply patches it (a three-way merge through the last-applied
// annotation when the object has one) and as kubectl replace sends it
// (--replace), against the server's answer to the same dry-run request:
// ratcheting of what did not change, nulls kept or dropped, fields a
// three-way merge removes. Each side must refuse some and allow others.
func TestUpdatesMatchServer(t *testing.T) {
	ctx := context.Background()
	if err := testCluster.CreateCRDs(ctx, serversCRD(true)); err != nil {
		t.Fatal(err)
	}
	type object struct {
		stored, file map[string]any // spec.server as stored, and in the file
		lastApplied  bool           // stored by kubectl apply: with its annotation
	}
	objects := map[string]object{
		// Stored nulls: a replace sends them again (unchanged: ratcheted);
		// apply's patch deletes them (changed: checked).
		"nulls": {stored: map[string]any{"annotations": nil, "placement": nil}, file: map[string]any{"annotations": nil, "placement": nil, "labels": nil}},
		// Unchanged but not ratcheted by the server: refused both ways.
		"filled": {stored: map[string]any{"placement": map[string]any{"a": int64(1)}}, file: map[string]any{"placement": map[string]any{"a": int64(1)}}},
		"empty":  {stored: map[string]any{}, file: map[string]any{}},
		// The file drops active: apply keeps it without a last-applied
		// annotation that names it, removes it with one.
		"dropped":         {stored: map[string]any{"active": int64(1), "placement": map[string]any{}}, file: map[string]any{"placement": map[string]any{}}},
		"dropped-applied": {stored: map[string]any{"active": int64(1), "placement": map[string]any{}}, file: map[string]any{"placement": map[string]any{}}, lastApplied: true},
		"valid":           {stored: map[string]any{}, file: map[string]any{"active": int64(2)}},
	}
	gvr := schema.GroupVersionResource{Group: "ratchet.example.com", Version: "v1", Resource: "servers"}
	client := dynamic.NewForConfigOrDie(testCluster.Config).Resource(gvr).Namespace("default")
	dir := t.TempDir()
	for name, o := range objects {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "ratchet.example.com/v1", "kind": "Server",
			"metadata": map[string]any{"name": name, "namespace": "default"}, "spec": map[string]any{"server": o.stored}}}
		if o.lastApplied {
			applied, _ := json.Marshal(obj.Object)
			obj.SetAnnotations(map[string]string{"kubectl.kubernetes.io/last-applied-configuration": string(applied)})
		}
		if _, err := client.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	crds := apiextensionsclient.NewForConfigOrDie(testCluster.Config).ApiextensionsV1().CustomResourceDefinitions()
	live, err := crds.Get(ctx, "servers.ratchet.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	live.Spec = serversCRD(false).Spec
	if _, err := crds.Update(ctx, live, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	crdFile := filepath.Join(dir, "crd.yaml")
	data, _ := yaml.Marshal(serversCRD(false))
	writeFile(t, crdFile, string(data))
	server, err := harness.NewDryRunner(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	file := func(name string) []byte {
		js, _ := json.Marshal(map[string]any{"apiVersion": "ratchet.example.com/v1", "kind": "Server",
			"metadata": map[string]any{"name": name, "namespace": "default"}, "spec": map[string]any{"server": objects[name].file}})
		return js
	}
	// The server answers under the tightened CRD once its handler has
	// seen it: "empty" has no active, changed to an object with labels.
	deadline := time.Now().Add(30 * time.Second)
	for probe := []byte(strings.Replace(string(file("empty")), `"server":{}`, `"server":{"labels":{}}`, 1)); server.Run(t, probe, "replace") == nil && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
	}
	refused, allowed := 0, 0
	for name := range objects {
		stored, err := client.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		liveJSON, _ := json.Marshal(stored.Object)
		oldFile := filepath.Join(dir, name+".live.json")
		newFile := filepath.Join(dir, name+".yaml")
		writeFile(t, oldFile, string(liveJSON))
		writeFile(t, newFile, string(file(name)))
		for _, operation := range []string{"update", "replace"} {
			args := []string{"validate", "--offline", "--crds", crdFile, "--old", oldFile, "-f", newFile, "-o", "json"}
			if operation == "replace" {
				args = append(args, "--replace")
			}
			r := bin.Run(t, "kubectl-crd", nil, args...)
			var report validate.Report
			if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil || len(report.Results) != 1 {
				t.Fatalf("%s %s: exit %d, %v\n%s%s", name, operation, r.Code, err, r.Stdout, r.Stderr)
			}
			res := report.Results[0]
			if res.Operation != operation {
				t.Errorf("%s: checked as %s, want %s", name, res.Operation, operation)
			}
			got := harness.Causes(res)
			want := harness.ServerCauses(server.Run(t, file(name), operation))
			if !slices.Equal(got, want) {
				t.Errorf("%s as %s: kubectl crd %v, the server %v", name, operation, got, want)
			}
			if len(want) > 0 {
				refused++
			} else {
				allowed++
			}
		}
	}
	t.Logf("%d updates refused, %d allowed, by both", refused, allowed)
	if refused < 4 || allowed < 4 {
		t.Errorf("the cases should be refused and allowed on both sides: %d refused, %d allowed", refused, allowed)
	}
}
