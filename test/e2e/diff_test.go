package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/diff"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// impactCRD is the CRD of TestDiffObjectImpactMatchesServer: old is what
// the objects are created under, new the upgrade diff predicts.
func impactCRD(new bool) *apiextensionsv1.CustomResourceDefinition {
	str := func(t string) apiextensionsv1.JSONSchemaProps { return apiextensionsv1.JSONSchemaProps{Type: t} }
	spec := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"replicas": {Type: "integer", Minimum: new0()},
		"name":     str("string"),
		"legacy":   str("string"),
		"probe":    str("string"),
		"mode":     str("string"),
		"tags":     {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
	}}
	if new {
		delete(spec.Properties, "legacy")
		delete(spec.Properties, "probe")
		r := spec.Properties["replicas"]
		r.Maximum = newFloat(5)
		spec.Properties["replicas"] = r
		n := spec.Properties["name"]
		n.Pattern = "^[a-z]+$"
		spec.Properties["name"] = n
		m := spec.Properties["mode"]
		m.Enum = []apiextensionsv1.JSON{{Raw: []byte(`"a"`)}, {Raw: []byte(`"b"`)}}
		spec.Properties["mode"] = m
		tags := spec.Properties["tags"]
		two, set := int64(2), "set"
		tags.MaxItems, tags.XListType = &two, &set
		spec.Properties["tags"] = tags
		spec.Required = []string{"name"}
		spec.XValidations = apiextensionsv1.ValidationRules{{Rule: "self.replicas != 7", Message: "seven is out"},
			// A transition rule holds even for an unchanged object: no
			// ratcheting spares it.
			{Rule: "!has(self.mode) || self.mode != 'z' || self.replicas > oldSelf.replicas", Message: "mode z must grow"}}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "impacts.diff.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "diff.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "impacts", Singular: "impact", Kind: "Impact", ListKind: "ImpactList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": spec}}}}},
		},
	}
}

func new0() *float64              { return newFloat(0) }
func newFloat(f float64) *float64 { return &f }

// TestDiffObjectImpactMatchesServer creates objects under an old CRD,
// asks kubectl crd diff what the new CRD does to them, then applies the
// new CRD and sends each object back unchanged as a dry-run update: the
// objects the server refuses (with their field, type causes) and the
// fields it drops must be what diff predicted.
func TestDiffObjectImpactMatchesServer(t *testing.T) {
	ctx := context.Background()
	if err := testCluster.CreateCRDs(ctx, impactCRD(false)); err != nil {
		t.Fatal(err)
	}
	specs := map[string]map[string]any{
		"fine":     {"replicas": int64(3), "name": "ok", "tags": []any{"x"}, "mode": "a"},
		"too-many": {"replicas": int64(9)},
		"legacy":   {"replicas": int64(1), "name": "ok", "legacy": "keep me"},
		"badname":  {"replicas": int64(1), "name": "Bad_Name"},
		"seven":    {"replicas": int64(7), "name": "x", "tags": []any{"a", "b", "c"}},
		"mode":     {"replicas": int64(1), "name": "x", "mode": "z"},
		"probe":    {"replicas": int64(1), "name": "probe", "probe": "p"},
		"dupes":    {"replicas": int64(1), "name": "x", "tags": []any{"a", "a"}, "legacy": "y"},
	}
	gvr := schema.GroupVersionResource{Group: "diff.example.com", Version: "v1", Resource: "impacts"}
	client, err := dynamic.NewForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	objects := client.Resource(gvr).Namespace("diff-impact")
	for name, spec := range specs {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "diff.example.com/v1", "kind": "Impact",
			"metadata": map[string]any{"name": name, "namespace": "diff-impact"}, "spec": spec}}
		if _, err := objects.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	before, err := objects.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	newFile := filepath.Join(t.TempDir(), "new.yaml")
	data, err := yaml.Marshal(impactCRD(true))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, newFile, string(data))
	r := bin.Run(t, "kubectl-crd", nil, "diff", "-f", newFile, "-o", "json", "--show-objects", "100")
	var report diff.Report
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil || r.Code != 1 {
		t.Fatalf("exit %d, %v:\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	predicted := map[string]diff.ObjectImpact{}
	for _, o := range report.Objects {
		predicted[o.Name] = o
	}
	if s := report.Summary.Objects["v1"]; s.Checked != len(specs) {
		t.Errorf("summary %+v: want %d objects checked", report.Summary, len(specs))
	}

	// The twin: the new CRD applied, each object sent back unchanged.
	crds := apiextensionsclient.NewForConfigOrDie(testCluster.Config).ApiextensionsV1().CustomResourceDefinitions()
	live, err := crds.Get(ctx, "impacts.diff.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	live.Spec = impactCRD(true).Spec
	if _, err := crds.Update(ctx, live, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// update returns what the server says of an unchanged update: its
	// refusal, or else the fields it drops.
	update := func(obj unstructured.Unstructured) (refused bool, line string) {
		sent := obj.DeepCopy()
		got, err := objects.Update(ctx, sent, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Ignore"})
		if err != nil {
			return true, impactLine(serverFieldErrors(err), nil)
		}
		return false, impactLine(nil, droppedPaths("", obj.Object["spec"], got.Object["spec"], "spec"))
	}
	probe := byName(t, before, "probe")
	deadline := time.Now().Add(30 * time.Second)
	for {
		// The server serves the new schema once its handler has seen the
		// update: the probe's field is then dropped.
		if _, line := update(probe); strings.Contains(line, "spec.probe") || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	agree, refusals := 0, 0
	for _, obj := range before.Items {
		refused, want := update(obj)
		p := predicted[obj.GetName()]
		var causes []diffFieldError
		for _, e := range p.Refused {
			causes = append(causes, diffFieldError{Field: e.Field, Type: e.Type})
		}
		got := impactLine(causes, p.Pruned)
		if refused {
			// A refused update shows no dropped fields to compare.
			refusals++
			got = impactLine(causes, nil)
		}
		if got != want {
			t.Errorf("%s: diff predicted %q, the server %q", obj.GetName(), got, want)
			continue
		}
		agree++
	}
	t.Logf("%d of %d objects: diff's prediction is the server's answer (%d refused); predicted: %v", agree, len(before.Items), refusals, predicted)
	if len(predicted) < 3 || refusals == 0 {
		t.Errorf("the upgrade should refuse one object and prune others: %v", predicted)
	}
}

func byName(t *testing.T, list *unstructured.UnstructuredList, name string) unstructured.Unstructured {
	for _, o := range list.Items {
		if o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no object %s", name)
	return unstructured.Unstructured{}
}

// impactLine writes an object's refusals (field type) and dropped fields
// in one comparable line; "" for none.
func impactLine(refused []diffFieldError, pruned []string) string {
	var parts []string
	for _, e := range refused {
		parts = append(parts, "refused "+e.Field+" "+e.Type)
	}
	for _, p := range pruned {
		parts = append(parts, "pruned "+p)
	}
	sort.Strings(parts)
	return strings.Join(parts, "; ")
}

type diffFieldError = struct{ Field, Type, Message string }

func serverFieldErrors(err error) []diffFieldError {
	var out []diffFieldError
	if se, ok := err.(*apierrors.StatusError); ok && se.ErrStatus.Details != nil {
		for _, c := range se.ErrStatus.Details.Causes {
			out = append(out, diffFieldError{Field: c.Field, Type: string(c.Type)})
		}
		return out
	}
	return []diffFieldError{{Field: "error", Type: err.Error()}}
}

// droppedPaths lists the paths of sent that are gone from got, as
// pruning names them (spec.a, spec.list[0].b).
func droppedPaths(_ string, sent, got any, path string) []string {
	switch s := sent.(type) {
	case map[string]any:
		g, _ := got.(map[string]any)
		var out []string
		for k, v := range s {
			gv, ok := g[k]
			if !ok {
				out = append(out, path+"."+k)
				continue
			}
			out = append(out, droppedPaths("", v, gv, path+"."+k)...)
		}
		return out
	case []any:
		g, _ := got.([]any)
		var out []string
		for i, v := range s {
			if i < len(g) {
				out = append(out, droppedPaths("", v, g[i], fmt.Sprintf("%s[%d]", path, i))...)
			}
		}
		return out
	}
	return nil
}

// TestDiffOffline: diff against --old files, in every format, with the
// exit status of the severities (and of --check overriding them), and
// positions in the new file.
func TestDiffOffline(t *testing.T) {
	dir := filepath.Join(repoRoot, "test/testdata/crdupdates/version-dropped-while-stored")
	args := []string{"diff", "-f", filepath.Join(dir, "new.yaml"), "--old", filepath.Join(dir, "old.yaml")}
	offline := []string{"KUBECONFIG="}
	r := bin.Run(t, "kubectl-crd", offline, append(args, "-o", "json")...)
	var report diff.Report
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil || r.Code != 1 {
		t.Fatalf("exit %d, %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	var checks []string
	for _, c := range report.Changes {
		checks = append(checks, fmt.Sprintf("%s %s %d", c.Check, c.Severity, c.Line))
	}
	if got := strings.Join(checks, ", "); got != "stored-version-removed error 14, storage-moved warning 17" {
		t.Errorf("changes: %s", got)
	}

	var sarif struct {
		Runs []struct {
			Results []struct {
				RuleID    string
				Locations []struct {
					PhysicalLocation struct {
						Region struct{ StartLine int }
					}
				}
			}
		}
	}
	s := bin.Run(t, "kubectl-crd", offline, append(args, "-o", "sarif")...)
	if err := json.Unmarshal([]byte(s.Stdout), &sarif); err != nil || len(sarif.Runs) != 1 || len(sarif.Runs[0].Results) != 2 ||
		sarif.Runs[0].Results[0].Locations[0].PhysicalLocation.Region.StartLine != 14 {
		t.Errorf("-o sarif: %v\n%s", err, s.Stdout)
	}
	g := bin.Run(t, "kubectl-crd", offline, append(args, "-o", "github")...)
	if !strings.HasPrefix(g.Stdout, "::error file="+filepath.Join(dir, "new.yaml")+",line=14,") || g.Code != 1 {
		t.Errorf("-o github: exit %d\n%s", g.Code, g.Stdout)
	}
	m := bin.Run(t, "kubectl-crd", offline, append(args, "-o", "markdown")...)
	if !strings.Contains(m.Stdout, "| error | v1 | `` | stored-version-removed |") || !strings.Contains(m.Stdout, "**breaking**") {
		t.Errorf("-o markdown:\n%s", m.Stdout)
	}
	w := bin.Run(t, "kubectl-crd", offline, append(args, "--check", "stored-version-removed=warning")...)
	if w.Code != 0 || !strings.Contains(w.Stdout, "warning v1: version v1 is in status.storedVersions") {
		t.Errorf("--check ...=warning: exit %d\n%s%s", w.Code, w.Stdout, w.Stderr)
	}
	bad := bin.Run(t, "kubectl-crd", offline, append(args, "--check", "nosuch=error")...)
	if bad.Code != 2 || !strings.Contains(bad.Stderr, `--check "nosuch=error"`) {
		t.Errorf("an unknown check: exit %d\n%s", bad.Code, bad.Stderr)
	}
}
