package convert

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// convertOffline runs kubectl crd convert with --crds and no cluster.
func convertOffline(t *testing.T, args ...string) harness.Result {
	t.Helper()
	return bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, append([]string{"convert"}, args...)...)
}

// tripsReport is the JSON report of --round-trip.
type tripsReport []struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Name   string `json:"name"`
	Status string `json:"status"`
	Trips  []struct {
		Versions []string `json:"versions"`
		Status   string   `json:"status"`
		Changes  []struct {
			Path   string `json:"path"`
			What   string `json:"what"`
			Before any    `json:"before"`
			Line   int    `json:"line"`
			Column int    `json:"column"`
		} `json:"changes"`
	} `json:"trips"`
}

// TestRoundTrip: the lossy webhook loses v2's shape on v2 -> v1 -> v2,
// named with its line; the lossless one (which keeps it in an annotation)
// passes; objects without the field pass both. A defaulted field that
// both webhooks drop is defaulted again (no loss), but a value the user
// set there is changed back to the default.
func TestRoundTrip(t *testing.T) {
	hooks := startWebhooks(t, false)
	group := "trip.conv.example.com"
	glossy := gizmos(group)[0]
	glossy.SetName("glossy")
	_ = unstructured.SetNestedField(glossy.Object, "glossy", "spec", "finish")
	objects := writeObjects(t, append(gizmos(group), glossy)...)
	for _, hook := range []string{"lossless", "lossy"} {
		crds := writeCRD(t, gizmoCRD(group, hooks.URL+"/"+hook, hooks.CA))
		r := convertOffline(t, "-f", objects, "--crds", crds, "--round-trip", "-o", "json")
		var report tripsReport
		if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil || len(report) != 3 {
			t.Fatalf("%s: exit %d, report %v:\n%s%s", hook, r.Code, err, r.Stdout, r.Stderr)
		}
		if report[0].Status != "unchanged" || report[0].Trips[0].Status != "unchanged" || fmt.Sprint(report[0].Trips[0].Versions) != "[v1 v2 v1]" {
			t.Errorf("%s: the v1 object: %+v", hook, report[0])
		}
		if g := report[2]; g.Status != "changed" || len(g.Trips[0].Changes) != 1 || g.Trips[0].Changes[0].Path != "spec.finish" ||
			g.Trips[0].Changes[0].What != "changed" || g.Trips[0].Changes[0].Line != lineOf(t, objects, "finish: glossy") {
			t.Errorf("%s: a finish that is not the default: %+v", hook, g)
		}
		v2 := report[1]
		if hook == "lossless" {
			if r.Code != 1 || v2.Status != "unchanged" {
				t.Errorf("lossless: exit %d, %+v", r.Code, v2)
			}
			continue
		}
		if r.Code != 1 || v2.Status != "changed" || len(v2.Trips) != 1 || len(v2.Trips[0].Changes) != 1 {
			t.Fatalf("lossy: exit %d, %+v", r.Code, v2)
		}
		c := v2.Trips[0].Changes[0]
		if c.Path != "spec.shape" || c.What != "lost" || c.Before != "round" || c.Line != lineOf(t, objects, "shape: round") {
			t.Errorf("lossy: change %+v", c)
		}
		text := convertOffline(t, "-f", objects, "--crds", crds, "--round-trip")
		want := fmt.Sprintf("%s:%d:%d: spec.shape: lost (was \"round\")", objects, c.Line, c.Column)
		if text.Code != 1 || !strings.Contains(text.Stdout, "v2 -> v1 -> v2: 1 field") || !strings.Contains(text.Stdout, want) {
			t.Errorf("lossy, text: exit %d\n%s%s", text.Code, text.Stdout, text.Stderr)
		}
	}
}

// lineOf is the line of the first line of file that contains s.
func lineOf(t *testing.T, file, s string) int {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range strings.Split(string(data), "\n") {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	t.Fatalf("%q is not in %s", s, file)
	return 0
}

// serviceCRD is gizmoCRD with its webhook given as the service
// gizmo-webhook.conv, at path.
func serviceCRD(group, path string, caBundle []byte) *apiextensionsv1.CustomResourceDefinition {
	crd := gizmoCRD(group, "https://unused", caBundle)
	port := int32(443)
	crd.Spec.Conversion.Webhook.ClientConfig = &apiextensionsv1.WebhookClientConfig{CABundle: caBundle,
		Service: &apiextensionsv1.ServiceReference{Namespace: serviceNamespace, Name: serviceName, Path: &path, Port: &port}}
	return crd
}

// TestWebhookURL: a webhook the CRD gives as a service, run "locally"
// and reached with --webhook-url, converts as the same webhook does
// through the server; TLS is verified against the service's name, so a
// certificate without it is refused; without --webhook-url the command
// says how to reach the service.
func TestWebhookURL(t *testing.T) {
	hooks := startWebhooks(t, true)
	group := "svc.conv.example.com"
	obj := gizmos(group)[1]
	byURL := gizmoCRD(group, hooks.URL+"/lossless", hooks.CA)
	if err := testCluster.CreateCRDs(context.Background(), byURL); err != nil {
		t.Fatal(err)
	}
	want, msg := serverRead(t, byURL, obj, "v1")
	if want == nil {
		t.Fatalf("the server: %s", msg)
	}
	crds := writeCRD(t, serviceCRD(group, "/lossless", hooks.CA))
	file := writeObjects(t, obj)
	r := convertOffline(t, "-f", file, "--crds", crds, "--output-version", group+"/v1", "-o", "json", "--webhook-url", hooks.URL+"/lossless")
	got := &unstructured.Unstructured{}
	if err := got.UnmarshalJSON([]byte(r.Stdout)); r.Code != 0 || err != nil {
		t.Fatalf("exit %d: %v\n%s", r.Code, err, r.Stderr)
	}
	if !equality.Semantic.DeepEqual(compared(want), compared(got)) {
		t.Errorf("server: %v\nconvert: %v", compared(want), compared(got))
	}
	// The path comes from the CRD when --webhook-url has none.
	before := hooks.Count("/lossless")
	r = convertOffline(t, "-f", file, "--crds", crds, "--output-version", group+"/v1", "--webhook-url", strings.TrimPrefix(hooks.URL, "https://")+"")
	if r.Code != 2 || !strings.Contains(r.Stderr, "https://HOST:PORT") {
		t.Errorf("--webhook-url without https: exit %d\n%s", r.Code, r.Stderr)
	}
	r = convertOffline(t, "-f", file, "--crds", crds, "--output-version", group+"/v1", "--webhook-url", hooks.URL)
	if r.Code != 0 || hooks.Count("/lossless") == before {
		t.Errorf("--webhook-url without a path: exit %d, %d requests to /lossless\n%s", r.Code, hooks.Count("/lossless")-before, r.Stderr)
	}

	// A certificate for 127.0.0.1 only: the server would refuse it for
	// the service, and so does convert.
	other := startWebhooks(t, false)
	crds = writeCRD(t, serviceCRD(group, "/lossless", other.CA))
	r = convertOffline(t, "-f", file, "--crds", crds, "--output-version", group+"/v1", "--webhook-url", other.URL+"/lossless")
	if r.Code != 1 || !strings.Contains(r.Stderr, "x509") || !strings.Contains(r.Stderr, serviceName+"."+serviceNamespace+".svc") {
		t.Errorf("a certificate without the service's name: exit %d\n%s", r.Code, r.Stderr)
	}

	// No address: what to run.
	r = convertOffline(t, "-f", file, "--crds", crds, "--output-version", group+"/v1")
	if r.Code != 1 || !strings.Contains(r.Stderr, "kubectl port-forward -n conv service/gizmo-webhook 9443:443") ||
		!strings.Contains(r.Stderr, "--webhook-url https://localhost:9443/lossless") {
		t.Errorf("no --webhook-url: exit %d\n%s", r.Code, r.Stderr)
	}
	// An object already at the version asked for needs no webhook.
	r = convertOffline(t, "-f", file, "--crds", crds, "--output-version", group+"/v2")
	if r.Code != 1 {
		t.Errorf("at-v2 to v2 is stored at v1 first, which needs the webhook: exit %d\n%s", r.Code, r.Stderr)
	}
	atV1 := writeObjects(t, gizmos(group)[0])
	r = convertOffline(t, "-f", atV1, "--crds", crds, "--output-version", group+"/v1")
	if r.Code != 0 || !strings.Contains(r.Stdout, "color: red") {
		t.Errorf("a v1 object at v1 (the storage version) needs no webhook: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestWebhookFaults: a webhook that cannot be reached, whose certificate
// the caBundle does not sign, or that answers too slowly, is a clear error
// within the timeout; the other objects are still converted.
func TestWebhookFaults(t *testing.T) {
	hooks := startWebhooks(t, false)
	other := startWebhooks(t, false)
	group := "faults.conv.example.com"
	objs := gizmos(group)
	file := writeObjects(t, objs[0], objs[1])
	for _, tc := range []struct {
		name, url string
		ca        []byte
		timeout   string
		want      string
	}{
		{name: "unreachable", url: "https://127.0.0.1:1/lossless", ca: hooks.CA, want: "connection refused"},
		{name: "tls", url: hooks.URL + "/lossless", ca: other.CA, want: "x509: certificate signed by unknown authority"},
		// Two timers bound the call, the HTTP client's and the request's
		// context (the webhook client sets both from the timeout); under
		// load either fires first.
		{name: "slow", url: hooks.URL + "/slow", ca: hooks.CA, timeout: "1s", want: "Client.Timeout exceeded|context deadline exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crds := writeCRD(t, gizmoCRD(group, tc.url, tc.ca))
			args := []string{"-f", file, "--crds", crds, "--output-version", group + "/v1"}
			if tc.timeout != "" {
				args = append(args, "--request-timeout", tc.timeout)
			}
			start := time.Now()
			r := convertOffline(t, args...)
			if elapsed := time.Since(start); elapsed > 10*time.Second {
				t.Errorf("took %v", elapsed)
			}
			// The v1 object is at v1 already: converted; the v2 one fails.
			if r.Code != 1 || !strings.Contains(r.Stdout, "name: at-v1") || strings.Contains(r.Stdout, "at-v2") ||
				!strings.Contains(r.Stderr, file+":") || !strings.Contains(r.Stderr, "conversion webhook for "+group+"/v2, Kind=Gizmo failed") ||
				!containsAny(r.Stderr, strings.Split(tc.want, "|")) || strings.Contains(r.Stderr, "goroutine") {
				t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.Code, r.Stdout, r.Stderr)
			}
		})
	}
}

// TestConvertInput: several kinds and versions in one stream (CRDs in
// the input count), a List out, exit codes of bad input.
func TestConvertInput(t *testing.T) {
	group := "input.conv.example.com"
	crd := gizmoCRD(group, "", nil)
	other := gizmoCRD("other.conv.example.com", "", nil)
	other.Spec.Names = apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList"}
	other.Name = "gadgets.other.conv.example.com"
	crdFile := writeCRD(t, other)
	objs := gizmos(group)
	gadget := gizmos("other.conv.example.com")[0]
	gadget.SetKind("Gadget")
	dir := t.TempDir()
	stream := filepath.Join(dir, "all.yaml")
	crdText, _ := os.ReadFile(writeCRD(t, crd))
	objText, _ := os.ReadFile(writeObjects(t, objs[0], gadget, objs[1]))
	if err := os.WriteFile(stream, []byte(string(crdText)+"---\n"+string(objText)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := convertOffline(t, "-f", stream, "--crds", crdFile, "--output-version", "v2")
	list := &unstructured.UnstructuredList{}
	if r.Code != 0 || list.UnmarshalJSON(yamlToJSON(t, r.Stdout)) != nil || len(list.Items) != 3 || list.GetKind() != "List" {
		t.Fatalf("exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	for i, want := range []string{group + "/v2", "other.conv.example.com/v2", group + "/v2"} {
		if list.Items[i].GetAPIVersion() != want {
			t.Errorf("item %d: %s, want %s", i, list.Items[i].GetAPIVersion(), want)
		}
	}
	// None between schemas that differ: v1's fields are pruned at v2.
	if _, found, _ := unstructured.NestedString(list.Items[0].Object, "spec", "color"); found {
		t.Errorf("spec.color kept at v2: %v", list.Items[0].Object)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no CRD", []string{"-f", writeObjects(t, objs[0])}, 2, "no CustomResourceDefinition defines Gizmo." + group},
		{"version not served", []string{"-f", stream, "--output-version", group + "/v3"}, 2, `serves no version "v3"`},
		{"other group", []string{"-f", stream, "--output-version", "example.com/v2"}, 2, "is not in the group"},
		{"missing file", []string{"-f", filepath.Join(dir, "gone.yaml")}, 2, "gone.yaml"},
		{"no input", nil, 2, "no input"},
		{"round-trip and output-version", []string{"-f", stream, "--round-trip", "--output-version", "v2"}, 2, "does not go with"},
	} {
		args := append(tc.args, "--crds", crdFile)
		r := convertOffline(t, args...)
		if r.Code != tc.code || !strings.Contains(r.Stderr, tc.want) || strings.Contains(r.Stderr, "goroutine") {
			t.Errorf("%s: exit %d\n%s", tc.name, r.Code, r.Stderr)
		}
	}
	bad := writeObjects(t, &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v9", "kind": "Gizmo", "metadata": map[string]any{"name": "x"}}})
	if r := convertOffline(t, "-f", bad, "--crds", writeCRD(t, crd)); r.Code != 2 || !strings.Contains(r.Stderr, bad+":1:1") || !strings.Contains(r.Stderr, `has no version "v9"`) {
		t.Errorf("an object at a version the CRD lacks: exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestCheckStored: convert --check reads the stored objects at every
// served version through the server and names those it cannot return,
// with the server's message; migrate runs the same check before writing.
func TestCheckStored(t *testing.T) {
	hooks := startWebhooks(t, false)
	group := "check.conv.example.com"
	crd := gizmoCRD(group, hooks.URL+"/lossless", hooks.CA)
	ctx := context.Background()
	if err := testCluster.CreateCRDs(ctx, crd); err != nil {
		t.Fatal(err)
	}
	client, err := dynamic.NewForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	ri := client.Resource(schema.GroupVersionResource{Group: group, Version: "v1", Resource: "gizmos"})
	for i := range 25 {
		name := fmt.Sprintf("gizmo-%02d", i)
		if i == 7 || i == 19 {
			name = fmt.Sprintf("unconvertible-%02d", i)
		}
		ns := []string{"default", "team-a"}[i%2]
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": group + "/v1", "kind": "Gizmo",
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"color": "red", "size": int64(i)}}}
		if _, err := ri.Namespace(ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	r := bin.Run(t, "kubectl-crd", nil, "convert", "gizmos."+group, "--check", "-o", "json", "--chunk-size", "10")
	var stored struct {
		Objects  int `json:"objects"`
		Failures []struct {
			Namespace, Name, Version, Message string
		} `json:"failures"`
		Incomplete string `json:"incomplete"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &stored); err != nil || r.Code != 1 {
		t.Fatalf("exit %d: %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	_, serverMsg := func() (any, string) {
		_, err := client.Resource(schema.GroupVersionResource{Group: group, Version: "v2", Resource: "gizmos"}).Namespace("team-a").Get(ctx, "unconvertible-07", metav1.GetOptions{})
		return nil, fmt.Sprint(err)
	}()
	if stored.Objects != 25 || len(stored.Failures) != 2 || stored.Incomplete != "" ||
		stored.Failures[0].Name != "unconvertible-07" || stored.Failures[0].Namespace != "team-a" || stored.Failures[0].Version != "v2" ||
		conversionMessage(stored.Failures[0].Message) != conversionMessage(serverMsg) || stored.Failures[1].Name != "unconvertible-19" {
		t.Errorf("%+v\nthe server: %s", stored, serverMsg)
	}
	// NAMEs: only those, in the namespace.
	r = bin.Run(t, "kubectl-crd", nil, "convert", "gizmos."+group, "gizmo-03", "unconvertible-19", "--check", "-n", "team-a")
	if r.Code != 1 || !strings.Contains(r.Stdout, "2 objects read at v1, v2: 1 could not be read") || !strings.Contains(r.Stdout, "team-a/unconvertible-19 at v2: ") {
		t.Errorf("names: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	// migrate to v2 refuses to start, naming the objects.
	c, err := apiextensionsClient()
	if err != nil {
		t.Fatal(err)
	}
	live, err := c.Get(ctx, crd.Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	live.Spec.Versions[0].Storage, live.Spec.Versions[1].Storage = false, true
	if _, err := c.Update(ctx, live, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Second)
	r = bin.Run(t, "kubectl-crd", nil, "migrate", "gizmos."+group)
	if r.Code != 2 || !strings.Contains(r.Stderr, "nothing was written") || !strings.Contains(r.Stderr, "team-a/unconvertible-07") ||
		!strings.Contains(r.Stderr, "team-a/unconvertible-19") || !strings.Contains(r.Stderr, "2 of 25 objects fail") {
		t.Errorf("migrate: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

func yamlToJSON(t *testing.T, s string) []byte {
	t.Helper()
	b, err := yaml.YAMLToJSON([]byte(s))
	if err != nil {
		t.Fatalf("%v:\n%s", err, s)
	}
	return b
}

func apiextensionsClient() (apiextensionsclient.CustomResourceDefinitionInterface, error) {
	c, err := apiextensionsclient.NewForConfig(testCluster.Config)
	if err != nil {
		return nil, err
	}
	return c.CustomResourceDefinitions(), nil
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
