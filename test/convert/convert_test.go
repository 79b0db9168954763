// Package convert tests kubectl crd convert against the in-process
// kube-apiserver and conversion webhooks served over TLS on loopback: the
// server, storing an object at one version and reading it at another, is
// the oracle of every conversion and of every message.
package convert

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/test/cluster"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

var (
	testCluster *cluster.Cluster
	bin         *harness.Bin
	repoRoot    string
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	var err error
	if repoRoot, err = filepath.Abs("../.."); err != nil {
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

// gizmoCRD is the CRD gizmos.GROUP: v1 (the storage version) and v2, both
// served, with the strategy given; the webhook at URL when url is set.
// Each version has a field with a default that the other lacks (and the
// webhooks drop): where the server applies defaults on the way, they show.
func gizmoCRD(group string, url string, caBundle []byte, reviewVersions ...string) *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	integer := apiextensionsv1.JSONSchemaProps{Type: "integer"}
	status := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"phase": str}}
	version := func(name string, storage bool, spec map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.CustomResourceDefinitionVersion {
		return apiextensionsv1.CustomResourceDefinitionVersion{Name: name, Served: true, Storage: storage,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"spec":   {Type: "object", Properties: spec},
					"status": status,
				}}}}
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "gizmos." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gizmos", Singular: "gizmo", Kind: "Gizmo", ListKind: "GizmoList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				version("v1", true, map[string]apiextensionsv1.JSONSchemaProps{"color": str, "size": integer, "finish": withDefault(str, "matte")}),
				version("v2", false, map[string]apiextensionsv1.JSONSchemaProps{"colour": str, "shape": str, "coating": withDefault(str, "none"),
					"dimensions": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": integer}}}),
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
		},
	}
	if url != "" {
		if len(reviewVersions) == 0 {
			reviewVersions = []string{"v1"}
		}
		crd.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
			Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: reviewVersions,
				ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url, CABundle: caBundle}}}
	}
	return crd
}

func withDefault(s apiextensionsv1.JSONSchemaProps, value string) apiextensionsv1.JSONSchemaProps {
	s.Default = &apiextensionsv1.JSON{Raw: []byte(strconv.Quote(value))}
	return s
}

// gizmos are the objects each case stores and reads: one at v1, one at
// v2 with the field v1 cannot hold, with labels, annotations, finalizers
// and a status.
func gizmos(group string) []*unstructured.Unstructured {
	meta := func(name string) map[string]any {
		return map[string]any{"name": name, "namespace": "default",
			"labels":      map[string]any{"app": "gizmo"},
			"annotations": map[string]any{"note": "kept"},
			"finalizers":  []any{"conv.example.com/cleanup"}}
	}
	return []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": group + "/v1", "kind": "Gizmo", "metadata": meta("at-v1"),
			"spec": map[string]any{"color": "red", "size": int64(3)}, "status": map[string]any{"phase": "Ready"}}},
		{Object: map[string]any{"apiVersion": group + "/v2", "kind": "Gizmo", "metadata": meta("at-v2"),
			"spec": map[string]any{"colour": "blue", "dimensions": map[string]any{"size": int64(5)}, "shape": "round"}}},
	}
}

// writeObjects writes objects as a YAML stream and returns its path.
func writeObjects(t *testing.T, objs ...*unstructured.Unstructured) string {
	t.Helper()
	var parts []string
	for _, o := range objs {
		b, err := yaml.Marshal(o.Object)
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, string(b))
	}
	path := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(path, []byte(strings.Join(parts, "---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeCRD writes a CRD to a file and returns its path.
func writeCRD(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) string {
	t.Helper()
	b, err := yaml.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "crd.yaml")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// serverRead is the server's answer: the object created at its version
// and read at version, or the message of the request that failed.
func serverRead(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, obj *unstructured.Unstructured, version string) (*unstructured.Unstructured, string) {
	t.Helper()
	client, err := dynamic.NewForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	gvr := func(v string) dynamic.ResourceInterface {
		return client.Resource(schema.GroupVersionResource{Group: crd.Spec.Group, Version: v, Resource: crd.Spec.Names.Plural}).Namespace(obj.GetNamespace())
	}
	ctx := context.Background()
	if _, err := gvr(obj.GroupVersionKind().Version).Create(ctx, obj.DeepCopy(), metav1.CreateOptions{}); err != nil {
		return nil, err.Error()
	}
	got, err := gvr(version).Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		return nil, err.Error()
	}
	return got, ""
}

// compared is what the comparison looks at: what a conversion decides
// (the server sets the rest of metadata itself).
func compared(o *unstructured.Unstructured) map[string]any {
	return map[string]any{
		"apiVersion":  o.GetAPIVersion(),
		"spec":        o.Object["spec"],
		"status":      o.Object["status"],
		"labels":      o.GetLabels(),
		"annotations": o.GetAnnotations(),
		"finalizers":  o.GetFinalizers(),
	}
}

var uids = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// conversionMessage is the part of a message from "conversion webhook
// for" on (what the server wraps around it differs by request), request
// uids masked; "" when there is none.
func conversionMessage(msg string) string {
	i := strings.Index(msg, "conversion webhook for")
	if i < 0 {
		return ""
	}
	return uids.ReplaceAllString(strings.TrimSpace(msg[i:]), "UID")
}

// ours runs kubectl crd convert of obj to version and returns the object
// it prints, or its message.
func ours(t *testing.T, obj *unstructured.Unstructured, group, version string, extra ...string) (*unstructured.Unstructured, string, harness.Result) {
	t.Helper()
	file := writeObjects(t, obj)
	args := append([]string{"convert", "-f", file, "--output-version", group + "/" + version, "-o", "json"}, extra...)
	r := bin.Run(t, "kubectl-crd", nil, args...)
	if r.Code != 0 {
		return nil, r.Stderr, r
	}
	out := &unstructured.Unstructured{}
	if err := out.UnmarshalJSON([]byte(r.Stdout)); err != nil {
		t.Fatalf("convert printed no object: %v\n%s", err, r.Stdout)
	}
	return out, "", r
}

// TestConvertMatchesServer: for each webhook (and None), each object is
// stored at its version and read at each version through the server, and
// converted by kubectl crd convert (the CRD from the cluster): the same
// object, or the same message.
func TestConvertMatchesServer(t *testing.T) {
	hooks := startWebhooks(t, false)
	cases := []struct {
		name    string
		none    bool
		reviews []string
		// fails: the server refuses the webhook's answer (the objects at
		// another version cannot be read).
		fails bool
	}{
		{name: "none", none: true},
		{name: "lossless"},
		{name: "lossless", reviews: []string{"v1beta1", "v1"}},
		{name: "lossy"},
		{name: "addlabel"},
		{name: "finalizer"},
		{name: "extrafield"},
		{name: "wronguid", fails: true},
		{name: "fewer", fails: true},
		{name: "wrongversion", fails: true},
		{name: "rename", fails: true},
		{name: "badlabel", fails: true},
		{name: "failure", fails: true},
		{name: "status500", fails: true},
		{name: "notreview", fails: true},
	}
	for i, tc := range cases {
		name := tc.name
		if len(tc.reviews) > 0 {
			name += "-" + strings.Join(tc.reviews, "-")
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			group := fmt.Sprintf("c%d.conv.example.com", i)
			url := ""
			if !tc.none {
				url = hooks.URL + "/" + tc.name
			}
			crd := gizmoCRD(group, url, hooks.CA, tc.reviews...)
			if err := testCluster.CreateCRDs(context.Background(), crd); err != nil {
				t.Fatal(err)
			}
			failures := 0
			for _, each := range gizmos(group) {
				for _, version := range []string{"v1", "v2"} {
					obj := each.DeepCopy() // each read stores an object of its own
					obj.SetName(obj.GetName() + "-read-at-" + version)
					want, wantMsg := serverRead(t, crd, obj, version)
					got, gotMsg, r := ours(t, obj, group, version)
					what := fmt.Sprintf("%s at %s", obj.GetName(), version)
					switch {
					case want != nil && got == nil:
						t.Errorf("%s: the server reads it, convert fails (exit %d): %s", what, r.Code, gotMsg)
					case want == nil && got != nil:
						t.Errorf("%s: the server fails (%s), convert gives %v", what, wantMsg, got.Object)
					case want != nil:
						if !equality.Semantic.DeepEqual(compared(want), compared(got)) {
							t.Errorf("%s:\nserver:  %v\nconvert: %v", what, compared(want), compared(got))
						}
					default:
						failures++
						if r.Code != 1 || conversionMessage(gotMsg) == "" || conversionMessage(gotMsg) != conversionMessage(wantMsg) {
							t.Errorf("%s: exit %d\nserver:  %s\nconvert: %s", what, r.Code, wantMsg, gotMsg)
						}
					}
				}
			}
			// Reading at-v1 at v1 converts nothing; every other read does.
			if tc.fails != (failures == 3) {
				t.Errorf("%d of 4 reads failed; want %v", failures, map[bool]string{true: "3", false: "0"}[tc.fails])
			}
		})
	}
}
