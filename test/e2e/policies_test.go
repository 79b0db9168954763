package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	validatingpolicy "k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/kubernetes/pkg/controller/validatingadmissionpolicystatus"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"
	"sigs.k8s.io/yaml"
)

// policyObjects are the objects the differential test sends: cogwheels
// over the dimensions the policies read (namespace, replicas, image,
// labels, size, tier, name, version), config maps, deployments and CRDs.
func policyObjects() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	i := 0
	for _, ns := range []string{"pt-prod", "pt-dev", "pt-other"} {
		for _, replicas := range []int64{-1, 1, 4, 9} {
			for _, image := range []string{"registry.example.com/app:1", "docker.io/app:1"} {
				for _, size := range []string{"", "s", "xl", "xs", "huge"} {
					i++
					g := cogwheel(fmt.Sprintf("g%d", i), ns, "v1")
					if replicas >= 0 {
						_ = unstructured.SetNestedField(g.Object, replicas, "spec", "replicas")
					}
					_ = unstructured.SetNestedField(g.Object, image, "spec", "image")
					if size != "" {
						_ = unstructured.SetNestedField(g.Object, size, "spec", "size")
					}
					labels := map[string]string{}
					switch (i / 5) % 5 {
					case 0:
						labels["team"] = "a"
					case 1:
						labels["canary"] = "true"
					case 2:
						labels["strict"] = "yes"
						labels["team"] = "b"
					case 3:
						labels["mutate"] = "yes"
					}
					g.SetLabels(labels)
					switch i % 7 {
					case 0:
						g.SetName("mc-" + g.GetName())
					case 1:
						g.SetName("err-" + g.GetName())
					case 2:
						g.SetName("or-" + g.GetName())
					case 3:
						g.SetName("a-name-long-enough-" + g.GetName())
					case 4:
						g.SetAPIVersion("admission.example.com/v1beta1")
					}
					if i%3 == 0 {
						_ = unstructured.SetNestedField(g.Object, "gold", "spec", "tier")
					} else if i%3 == 1 {
						_ = unstructured.SetNestedField(g.Object, "silver", "spec", "tier")
					}
					out = append(out, g)
				}
			}
		}
	}
	for _, ns := range []string{"pt-prod", "pt-other"} {
		for j, data := range []map[string]any{{"a": "1"}, {"forbidden": "x"}, nil} {
			cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
				"metadata": map[string]any{"name": fmt.Sprintf("pt-cm-%d", j), "namespace": ns}}}
			if data != nil {
				cm.Object["data"] = data
			}
			out = append(out, cm)
		}
		for _, replicas := range []int64{1, 6} {
			out = append(out, deployment(fmt.Sprintf("pt-deploy-%d", replicas), ns, replicas))
			mutated := deployment(fmt.Sprintf("pt-deploy-mutated-%d", replicas), ns, replicas)
			mutated.SetLabels(map[string]string{"mutate": "yes"})
			out = append(out, mutated)
		}
	}
	for _, scope := range []string{"Namespaced", "Cluster"} {
		for _, labelled := range []bool{true, false} {
			out = append(out, policyCRD(scope, labelled))
		}
	}
	return out
}

func cogwheel(name, ns, version string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "admission.example.com/" + version, "kind": "Cogwheel",
		"metadata": map[string]any{"name": name, "namespace": ns}, "spec": map[string]any{}}}
}

func deployment(name, ns string, replicas int64) *unstructured.Unstructured {
	labels := map[string]any{"app": name}
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": labels},
			"template": map[string]any{"metadata": map[string]any{"labels": labels},
				"spec": map[string]any{"containers": []any{map[string]any{"name": "app", "image": "registry.example.com/app:1"}}}}}}}
}

func policyCRD(scope string, labelled bool) *unstructured.Unstructured {
	plural := "w" + strings.ToLower(scope)
	if labelled {
		plural += "labelled"
	}
	crd := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + ".admission.example.com"},
		"spec": map[string]any{"group": "admission.example.com", "scope": scope,
			"names": map[string]any{"plural": plural, "kind": "W" + plural[1:]},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}}}}}
	if labelled {
		crd.SetLabels(map[string]string{"policy-test": "on"})
	}
	return crd
}

// policyAnswer is one side's answer to one object: the refusal's causes
// (messages of admission's, FIELD TYPE of the schema's), the admission
// warnings, and of a mutated object its labels, annotations and spec.
type policyAnswer struct {
	Causes   []string
	Warnings []string
	Mutated  string
}

// TestPoliciesMatchServer installs 22 admission policies with their
// bindings, params and namespaces in the server, sends each of ~280
// objects as a dry-run create (and some as an update of a stored object),
// and requires kubectl crd validate --policies, given the same policies
// from a file, to answer each alike: allowed or denied, with the same
// messages, the same Warn warnings and the same mutations. Both sides
// must deny some objects and allow others, and each policy must deny on
// the server at least once, so that no policy is left unexercised.
func TestPoliciesMatchServer(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(repoRoot, "test/testdata/policies")
	if _, err := testCluster.LoadCRDs(ctx, filepath.Join(dir, "crds.yaml")); err != nil {
		t.Fatal(err)
	}
	config, err := loadPolicies(ctx, filepath.Join(dir, "policies.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	objects := policyObjects()
	updates := policyUpdates()
	var docs []string
	for _, o := range append(slices.Clone(objects), updates...) {
		y, _ := yaml.Marshal(o.Object)
		docs = append(docs, string(y))
	}
	input := filepath.Join(t.TempDir(), "objects.yaml")
	if err := os.WriteFile(input, []byte(strings.Join(docs, "\n---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(t.TempDir(), "old.yaml")
	var olds []string
	for _, o := range updates {
		stored := o.DeepCopy()
		_ = unstructured.SetNestedField(stored.Object, int64(3), "spec", "replicas")
		y, _ := yaml.Marshal(stored.Object)
		olds = append(olds, string(y))
	}
	if err := os.WriteFile(old, []byte(strings.Join(olds, "\n---\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	mutations, builtInMutations, alike := 0, 0, 0
	defer func() {
		if mutations == 0 || builtInMutations == 0 {
			t.Errorf("%d objects mutated, %d of a built-in kind: the mutating policies are not compared", mutations, builtInMutations)
		}
		if alike < 20 {
			t.Errorf("only %d denials with the same message: messages are hardly compared", alike)
		}
	}()
	offline := []string{"--offline", "--old", old, "--crds", filepath.Join(dir, "crds.yaml"), "--policies", filepath.Join(dir, "policies.yaml")}
	for _, run := range []struct {
		name string
		as   []string
		// online: the policies, CRDs and old objects are the cluster's
		// (the updated objects exist there once the server's side ran).
		online bool
	}{
		{"jane", []string{"--as", "jane", "--as-group", "gold-team"}, false},
		{"mallory", []string{"--as", "mallory"}, false},
		{"online", nil, true},
	} {
		t.Run(run.name, func(t *testing.T) {
			server := serverPolicyAnswers(t, config, objects, updates, olds, run.as)
			flags := append(slices.Clone(offline), run.as...)
			if run.online {
				flags = nil
			}
			ours := clientPolicyAnswers(t, input, flags)
			if len(ours) != len(server) {
				t.Fatalf("kubectl crd gave %d answers for %d objects", len(ours), len(server))
			}
			denied, allowed, warned, mutated, sameDenial, otherFirst := 0, 0, 0, 0, 0, 0
			denials := map[string]int{}
			for i := range server {
				name := fmt.Sprintf("#%d", i)
				switch {
				case reflect.DeepEqual(server[i], ours[i]):
					if len(server[i].Causes) > 0 {
						sameDenial++
					}
				case otherFirstDenial(server[i], ours[i]):
					// The server answers with the first policy that denies,
					// in an order its policy source takes from a map: both
					// sides deny, each naming a policy that does.
					otherFirst++
				default:
					t.Errorf("%s:\n  server:      %+v\n  kubectl crd: %+v\n  object: %s", name, server[i], ours[i], docs[i])
				}
				if len(server[i].Causes) > 0 {
					denied++
					for _, c := range server[i].Causes {
						if p, _, ok := strings.Cut(c, "' "); ok {
							denials[strings.TrimPrefix(p, "ValidatingAdmissionPolicy '")]++
						}
					}
				} else {
					allowed++
				}
				if len(server[i].Warnings) > 0 {
					warned++
				}
				if server[i].Mutated != "" {
					mutated++
					if strings.Contains(server[i].Mutated, `"template"`) {
						builtInMutations++
					}
				}
			}
			t.Logf("%d objects: %d denied (%d with the same message, %d naming another policy that denies), %d allowed, %d with policy warnings, %d mutated; denials by policy on the server: %v",
				len(server), denied, sameDenial, otherFirst, allowed, warned, mutated, denials)
			if denied == 0 || allowed == 0 || warned == 0 {
				t.Errorf("the cases prove little: %d denied, %d allowed, %d warned", denied, allowed, warned)
			}
			mutations += mutated
			alike += sameDenial
		})
	}
}

// otherFirstDenial tells whether both sides deny by admission policies
// with the same warnings, each naming a different policy first.
func otherFirstDenial(server, ours policyAnswer) bool {
	denial := func(a policyAnswer) bool {
		return len(a.Causes) == 1 && strings.HasPrefix(a.Causes[0], "ValidatingAdmissionPolicy '")
	}
	return denial(server) && denial(ours) && slices.Equal(server.Warnings, ours.Warnings) && server.Mutated == ours.Mutated
}

// policyUpdates are cogwheels sent as updates of a stored cogwheel with 3
// replicas (the no-shrink policy reads oldObject).
func policyUpdates() []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, replicas := range []int64{1, 3, 5} {
		g := cogwheel(fmt.Sprintf("upd-%d", replicas), "pt-dev", "v1")
		g.SetLabels(map[string]string{"team": "a"})
		_ = unstructured.SetNestedField(g.Object, replicas, "spec", "replicas")
		out = append(out, g)
	}
	return out
}

// loadPolicies creates the objects of path in the server (namespaces and
// params first, then policies, then bindings) and waits until the
// server's admission has them all: a probe object is refused by the last
// binding created.
func loadPolicies(ctx context.Context, path string) (*rest.Config, error) {
	docs, err := manifest.ReadPaths([]string{path}, false, nil)
	if err != nil {
		return nil, err
	}
	var first, policies, bindings []*unstructured.Unstructured
	for i := range docs {
		obj, err := docs[i].TakeObject()
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: obj}
		switch {
		case strings.HasSuffix(u.GetKind(), "Binding"):
			bindings = append(bindings, u)
		case strings.HasSuffix(u.GetKind(), "Policy"):
			policies = append(policies, u)
		default:
			first = append(first, u)
		}
	}
	for _, group := range [][]*unstructured.Unstructured{first, policies, bindings} {
		if err := testCluster.CreateObjects(ctx, group...); err != nil {
			return nil, err
		}
	}
	config := rest.CopyConfig(testCluster.Config)
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	// The server's plugins have the policies when a probe is refused by
	// pt-names and, renamed, is mutated by pt-mutate, whose binding is the
	// last created; the informers of params start after that, hence a
	// moment more.
	create := func(name string) (*unstructured.Unstructured, error) {
		probe := cogwheel(name, "pt-dev", "v1")
		probe.SetLabels(map[string]string{"mutate": "yes", "team": "a"})
		return client.Resource(cogwheels).Namespace("pt-dev").Create(ctx, probe, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	}
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := create("a-probe-with-a-name-too-long")
		if err != nil && strings.Contains(err.Error(), "names are short") {
			var got *unstructured.Unstructured
			if got, err = create("probe"); err == nil && got.GetLabels()["mutated"] == "true" {
				time.Sleep(2 * time.Second)
				return config, nil
			}
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the server's admission did not take the policies within a minute: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

var cogwheels = schema.GroupVersionResource{Group: "admission.example.com", Version: "v1", Resource: "cogwheels"}

// serverPolicyAnswers sends each object to the server as a dry-run, as
// the user of as (impersonated): a create, or for updates an update of
// the stored old object.
func serverPolicyAnswers(t *testing.T, base *rest.Config, objects, updates []*unstructured.Unstructured, olds []string, as []string) []policyAnswer {
	t.Helper()
	ctx := context.Background()
	config := rest.CopyConfig(base)
	if len(as) > 1 {
		config.Impersonate = rest.ImpersonationConfig{UserName: as[1]}
	}
	if len(as) > 3 {
		config.Impersonate.Groups = []string{as[3]}
	}
	rec := &warningRecorder{}
	config.WarningHandler = rec
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := dynamic.NewForConfig(base)
	if err != nil {
		t.Fatal(err)
	}
	mapper := map[string]schema.GroupVersionResource{
		"Cogwheel":                 cogwheels,
		"ConfigMap":                {Version: "v1", Resource: "configmaps"},
		"Deployment":               {Group: "apps", Version: "v1", Resource: "deployments"},
		"CustomResourceDefinition": {Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"},
	}
	resource := func(u *unstructured.Unstructured) dynamic.ResourceInterface {
		gvr := mapper[u.GetKind()]
		gvr.Version = u.GroupVersionKind().Version
		if u.GetNamespace() == "" {
			return client.Resource(gvr)
		}
		return client.Resource(gvr).Namespace(u.GetNamespace())
	}
	dry := []string{metav1.DryRunAll}
	var out []policyAnswer
	for _, o := range objects {
		rec.reset()
		got, err := createOnceReady(ctx, resource(o), o, metav1.CreateOptions{DryRun: dry, FieldValidation: "Strict"})
		out = append(out, serverAnswer(got, err, rec.list()))
	}
	for i, o := range updates {
		stored := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(olds[i]), &stored.Object); err != nil {
			t.Fatal(err)
		}
		live, err := admin.Resource(cogwheels).Namespace(stored.GetNamespace()).Get(ctx, stored.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			live, err = admin.Resource(cogwheels).Namespace(stored.GetNamespace()).Create(ctx, stored, metav1.CreateOptions{})
		}
		if err != nil {
			t.Fatal(err)
		}
		next := o.DeepCopy()
		next.SetResourceVersion(live.GetResourceVersion())
		rec.reset()
		got, err := resource(next).Update(ctx, next, metav1.UpdateOptions{DryRun: dry, FieldValidation: "Strict"})
		out = append(out, serverAnswer(got, err, rec.list()))
	}
	return out
}

func serverAnswer(got *unstructured.Unstructured, err error, warnings []string) policyAnswer {
	a := policyAnswer{Warnings: admissionWarnings(warnings)}
	var se *apierrors.StatusError
	switch {
	case err == nil:
		a.Mutated = mutation(got.Object)
	case !errors.As(err, &se):
		a.Causes = []string{"error " + err.Error()}
	case se.ErrStatus.Details != nil && len(se.ErrStatus.Details.Causes) > 0:
		for _, c := range se.ErrStatus.Details.Causes {
			a.Causes = append(a.Causes, cause(c.Field, string(c.Type), c.Message))
		}
	default:
		a.Causes = []string{string(se.ErrStatus.Reason) + ": " + se.ErrStatus.Message}
	}
	slices.Sort(a.Causes)
	return a
}

// cause is an admission denial by its message, any other refusal by its
// field and type.
func cause(field, typ, message string) string {
	if field == "" {
		return message
	}
	return field + " " + typ
}

// admissionWarnings are the warnings of policies (Warn actions).
func admissionWarnings(all []string) []string {
	var out []string
	for _, w := range all {
		if strings.Contains(w, "AdmissionPolicy") {
			out = append(out, w)
		}
	}
	slices.Sort(out)
	return out
}

// mutation is what pt-mutate changes (nothing when the object has not
// its label).
func mutation(obj map[string]any) string {
	u := &unstructured.Unstructured{Object: obj}
	if u.GetLabels()["mutated"] == "" && u.GetAnnotations()["stamped"] == "" {
		return ""
	}
	spec, _, _ := unstructured.NestedMap(obj, "spec")
	js, _ := json.Marshal(map[string]any{"labels": u.GetLabels(), "annotations": u.GetAnnotations(), "spec": spec})
	return string(js)
}

// clientPolicyAnswers runs kubectl crd validate on the input with flags
// (the policies, CRDs and old objects offline; none online), as a
// replace of the objects that exist.
func clientPolicyAnswers(t *testing.T, input string, flags []string) []policyAnswer {
	t.Helper()
	args := append([]string{"validate", "-f", input, "--replace"}, flags...)
	res := bin.Run(t, "kubectl-crd", nil, append(args, "-o", "json")...)
	if res.Code != 0 && res.Code != 1 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	var report validate.Report
	if err := json.Unmarshal([]byte(res.Stdout), &report); err != nil {
		t.Fatalf("%v: %s", err, res.Stdout)
	}
	yamlRes := bin.Run(t, "kubectl-crd", nil, append(args, "-o", "yaml")...)
	stored, err := manifest.ReadPaths([]string{writeTemp(t, yamlRes.Stdout)}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]map[string]any{}
	for i := range stored {
		obj, err := stored[i].TakeObject()
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: obj}
		byName[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = obj
	}
	var out []policyAnswer
	for _, r := range report.Results {
		a := policyAnswer{}
		for _, e := range r.Errors {
			a.Causes = append(a.Causes, cause(e.Field, e.Type, e.Message))
		}
		for _, w := range r.Warnings {
			a.Warnings = append(a.Warnings, w.Message)
		}
		a.Warnings = admissionWarnings(a.Warnings)
		if r.Status == validate.Valid && r.Kind != "CustomResourceDefinition" {
			obj := byName[r.Kind+"/"+r.Namespace+"/"+r.Name]
			if obj == nil {
				t.Fatalf("%s %s/%s is valid, and not in -o yaml's output", r.Kind, r.Namespace, r.Name)
			}
			a.Mutated = mutation(obj)
			if a.Mutated != "" && len(r.Mutation) == 0 {
				t.Errorf("%s %s/%s was mutated, and -o json has no mutation", r.Kind, r.Namespace, r.Name)
			}
		}
		slices.Sort(a.Causes)
		out = append(out, a)
	}
	return out
}

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.yaml")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// warningRecorder keeps the warnings of the server's answers.
type warningRecorder struct {
	mu   sync.Mutex
	seen []string
}

func (w *warningRecorder) HandleWarningHeader(_ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warningRecorder) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = nil
}

func (w *warningRecorder) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.seen)
}

// TestPolicyTypeCheckingMatchesServer: a ValidatingAdmissionPolicy with
// expressions that name fields its kinds do not have (a CRD's and a
// built-in kind's) gets from validate -f the warnings the cluster writes
// in its status.typeChecking, at the expression's line; a correct
// expression gets none on either side. The cluster's writer is
// kube-controller-manager's controller, run here as it runs it: its
// kinds and schemas come from the server's discovery and /openapi/v3.
func TestPolicyTypeCheckingMatchesServer(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := runTypeCheckingController(ctx, testCluster.Config); err != nil {
		t.Fatal(err)
	}
	policy := `apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: pt-typecheck}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [stable.example.com], apiVersions: [v1], operations: [CREATE], resources: [crontabs]}
    - {apiGroups: [apps], apiVersions: [v1], operations: [CREATE], resources: [deployments]}
  validations:
  - expression: "object.spec.replicas <= 3"
  - expression: "object.spec.replica <= 3"
  - expression: "object.metadata.name.size() < 10 && object.spec.template.spec.nodeName == ''"
`
	path := writeTemp(t, policy)
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(policy), &u.Object); err != nil {
		t.Fatal(err)
	}
	if err := testCluster.CreateObjects(ctx, u); err != nil {
		t.Fatal(err)
	}
	client, err := dynamic.NewForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	vaps := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingadmissionpolicies"}
	var server []string
	deadline := time.Now().Add(time.Minute)
	for {
		got, err := client.Resource(vaps).Get(ctx, "pt-typecheck", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		warnings, found, _ := unstructured.NestedSlice(got.Object, "status", "typeChecking", "expressionWarnings")
		if found {
			for _, w := range warnings {
				m := w.(map[string]any)
				server = append(server, fmt.Sprintf("%v: %v", m["fieldRef"], m["warning"]))
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server wrote no status.typeChecking within a minute")
		}
		time.Sleep(200 * time.Millisecond)
	}
	res := bin.Run(t, "kubectl-crd", nil, "validate", "--offline", "--crds", filepath.Join(repoRoot, "examples", "crds"), "-f", path, "-o", "json")
	var report validate.Report
	if err := json.Unmarshal([]byte(res.Stdout), &report); err != nil || len(report.Results) != 1 {
		t.Fatalf("exit %d, %v: %s %s", res.Code, err, res.Stdout, res.Stderr)
	}
	var ours []string
	lines := map[string]int{}
	for _, w := range report.Results[0].Warnings {
		if w.Type == "TypeChecking" {
			ours = append(ours, w.Field+": "+w.Message)
			lines[w.Field] = w.Line
		}
	}
	slices.Sort(server)
	slices.Sort(ours)
	if len(server) != 2 || !slices.Equal(server, ours) {
		t.Fatalf("type checking:\n  server:      %q\n  kubectl crd: %q", server, ours)
	}
	if lines["spec.validations[1].expression"] != 11 || lines["spec.validations[2].expression"] != 12 {
		t.Errorf("warnings at lines %v, want 11 and 12", lines)
	}
}

// runTypeCheckingController runs kube-controller-manager's
// ValidatingAdmissionPolicy status controller against the cluster of
// config, set up as kube-controller-manager sets it up, until ctx ends.
func runTypeCheckingController(ctx context.Context, config *rest.Config) error {
	client, err := kubernetes.NewForConfig(config)
	if err != nil {
		return err
	}
	dc := memory.NewMemCacheClient(client.Discovery())
	checker := &validatingpolicy.TypeChecker{
		SchemaResolver: resolver.NewDefinitionsSchemaResolver(generatedopenapi.GetOpenAPIDefinitions, clientgoscheme.Scheme, apiextensionsscheme.Scheme).
			Combine(&resolver.ClientDiscoveryResolver{Discovery: client.Discovery()}),
		RestMapper: restmapper.NewDeferredDiscoveryRESTMapper(dc),
	}
	factory := informers.NewSharedInformerFactory(client, 0)
	c, err := validatingadmissionpolicystatus.NewController(factory.Admissionregistration().V1().ValidatingAdmissionPolicies(),
		client.AdmissionregistrationV1().ValidatingAdmissionPolicies(), checker)
	if err != nil {
		return err
	}
	factory.Start(ctx.Done())
	go c.Run(ctx, 1)
	return nil
}

// TestLanguageServerReadsClusterPolicies: kubectl crd lsp online, with
// no policies in its settings, checks a document through the cluster's
// own admission policies (installed by TestPoliciesMatchServer): a
// denial is among its diagnostics, the one validate gives the file online.
func TestLanguageServerReadsClusterPolicies(t *testing.T) {
	if _, err := testCluster.LoadCRDs(context.Background(), filepath.Join(repoRoot, "test/testdata/policies/crds.yaml")); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	if _, err := loadPolicies(context.Background(), filepath.Join(repoRoot, "test/testdata/policies/policies.yaml")); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	doc := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pt-lsp\n  namespace: pt-prod\ndata:\n  forbidden: x\n"
	file := writeTemp(t, doc)
	res := bin.Run(t, "kubectl-crd", nil, "validate", "-f", file)
	if !strings.Contains(res.Stdout, "ValidatingAdmissionPolicy 'pt-configmaps' with binding 'pt-configmaps' denied request: no key forbidden") {
		t.Fatalf("validate online: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	cmd := exec.Command(filepath.Join(bin.Dir, "kubectl-crd"), "lsp")
	cmd.Env = []string{"HOME=" + t.TempDir(), "KUBECONFIG=" + bin.Kubeconfig}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	send := func(v map[string]any) {
		v["jsonrpc"] = "2.0"
		body, _ := json.Marshal(v)
		fmt.Fprintf(in, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	uri := "file://" + file
	send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"processId": nil, "rootUri": "file://" + filepath.Dir(file), "capabilities": map[string]any{}}})
	send(map[string]any{"method": "initialized", "params": map[string]any{}})
	send(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "yaml", "version": 1, "text": doc}}})
	found := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		for {
			var n int
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					return
				}
				if line == "\r\n" {
					break
				}
				fmt.Sscanf(line, "Content-Length: %d", &n)
			}
			body := make([]byte, n)
			if _, err := io.ReadFull(r, body); err != nil {
				return
			}
			var m struct {
				Method string
				Params struct {
					URI         string
					Diagnostics []struct{ Message string }
				}
			}
			if json.Unmarshal(body, &m) == nil && m.Method == "textDocument/publishDiagnostics" && m.Params.URI == uri {
				var msgs []string
				for _, d := range m.Params.Diagnostics {
					msgs = append(msgs, d.Message)
				}
				found <- strings.Join(msgs, "\n")
				return
			}
		}
	}()
	select {
	case got := <-found:
		if !strings.Contains(got, "ValidatingAdmissionPolicy 'pt-configmaps' with binding 'pt-configmaps' denied request: no key forbidden") {
			t.Errorf("lsp diagnostics without the cluster's policy's denial:\n%s", got)
		}
	case <-time.After(time.Minute):
		t.Fatal("no diagnostics within a minute")
	}
}
