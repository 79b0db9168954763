package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/yaml"
)

// kyvernoDir holds the Kyverno Test files of TestKyvernoTestsAsTheServer.
var kyvernoDir = filepath.Join("..", "testdata", "kyverno")

// kyvernoTest is what the oracle reads of a Test file: its files and its
// results, at the top or under spec (read here without pkg/policytest).
type kyvernoTest struct {
	Policies       []string `json:"policies"`
	Resources      []string `json:"resources"`
	ParamResources []string `json:"paramResources"`
	Variables      string   `json:"variables"`
	UserInfo       string   `json:"userinfo"`
	Values         *struct {
		NamespaceSelector []struct {
			Name   string            `json:"name"`
			Labels map[string]string `json:"labels"`
		} `json:"namespaceSelector"`
	} `json:"values"`
	Results []struct {
		Policy           string   `json:"policy"`
		Kind             string   `json:"kind"`
		Resources        []string `json:"resources"`
		Resource         string   `json:"resource"`
		Namespace        string   `json:"namespace"`
		Result           string   `json:"result"`
		Status           string   `json:"status"`
		PatchedResources string   `json:"patchedResources"`
		Message          string   `json:"message"`
	} `json:"results"`
}

// TestKyvernoTestsAsTheServer: each expected result of the Kyverno Test
// files is kube-apiserver's answer, and kubectl crd test gives them all,
// offline. The server's: each policy is installed alone with its
// bindings (the params, namespaces and CRDs beside it) and a probe of it
// (see probeOf), and each object it is tested on is created with dryRun:
// denied by it, fail; else, warned of by the probe, pass (it was
// evaluated); else skip. A mutating policy's object
// as the server returns it holds every field of the patched resource,
// and every field the policy changed. Then every expectation is flipped,
// and kubectl crd test must fail every result.
func TestKyvernoTestsAsTheServer(t *testing.T) {
	ctx := context.Background()
	crds, err := filepath.Abs(filepath.Join(kyvernoDir, "crds.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testCluster.LoadCRDs(ctx, crds); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	s := newServerPolicies(t)
	for _, dir := range []string{"hostpath", "params", "namespaces", "conditions", "mutating", "custom", "userinfo"} {
		t.Run(dir, func(t *testing.T) {
			dir := filepath.Join(kyvernoDir, dir)
			test := readKyvernoTest(t, dir)
			s.setUp(t, dir, test)
			answers := s.answers(t, dir, test)
			for i, r := range test.Results {
				want := r.Result
				if want == "" {
					want = r.Status
				}
				for _, name := range resultNames(r.Resources, r.Resource, r.Namespace) {
					got := answers[resultKey{i, name}]
					if strings.SplitN(got, ":", 2)[0] != want {
						t.Errorf("result %d, %s %s: the file expects %s, the server answers %s", i, r.Policy, name, want, got)
					}
					if r.Message != "" && !strings.Contains(got, r.Message) {
						t.Errorf("result %d, %s %s: the file expects the message %q, the server answers %s", i, r.Policy, name, r.Message, got)
					}
				}
			}
			ours := bin.Run(t, "kubectl-crd", nil, "test", dir, "--crds", crds, "-o", "json")
			if ours.Code != 0 {
				t.Fatalf("kubectl crd test: exit %d\n%s%s", ours.Code, ours.Stdout, ours.Stderr)
			}
			flipped(t, dir, crds, test)
		})
	}
}

// resultNames are the resources a result names, NAME or NAMESPACE/NAME.
func resultNames(resources []string, resource, namespace string) []string {
	out := slices.Clone(resources)
	if resource != "" {
		out = append(out, resource)
	}
	for i, n := range out {
		if namespace != "" && !strings.Contains(n, "/") {
			out[i] = namespace + "/" + n
		}
	}
	return out
}

type resultKey struct {
	result int
	name   string
}

func readKyvernoTest(t *testing.T, dir string) kyvernoTest {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "kyverno-test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var top struct {
		kyvernoTest `json:",inline"`
		Spec        *kyvernoTest `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	if top.Spec != nil {
		return *top.Spec
	}
	return top.kyvernoTest
}

// flipped writes the Test with every result expecting another answer
// (and a result with a patched resource, that file with one value
// changed): kubectl crd test must exit 1, failing every case.
func flipped(t *testing.T, dir, crds string, test kyvernoTest) {
	t.Helper()
	copyDir := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	patched := map[string]bool{}
	for _, r := range test.Results {
		if r.PatchedResources != "" {
			patched[r.PatchedResources] = true
		}
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if patched[e.Name()] {
			data = []byte(strings.Replace(string(data), "revisionHistoryLimit: 3", "revisionHistoryLimit: 4", 1))
		}
		if err := os.WriteFile(filepath.Join(copyDir, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "kyverno-test.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	holder := doc
	if spec, ok := doc["spec"].(map[string]any); ok {
		holder = spec
	}
	var want []string
	for i, r := range test.Results {
		for _, name := range resultNames(r.Resources, r.Resource, r.Namespace) {
			want = append(want, r.Policy+" / "+name)
		}
		if r.PatchedResources != "" {
			continue
		}
		res := holder["results"].([]any)[i].(map[string]any)
		key := "result"
		if _, ok := res["status"]; ok {
			key = "status"
		}
		res[key] = map[string]string{"pass": "fail", "fail": "pass", "skip": "pass"}[res[key].(string)]
	}
	out, err := yaml.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(copyDir, "kyverno-test.yaml"), out, 0o644); err != nil {
		t.Fatal(err)
	}
	res := bin.Run(t, "kubectl-crd", nil, "test", copyDir, "--crds", crds, "-o", "json")
	var rep struct {
		Cases []struct {
			Name, Status string
		} `json:"cases"`
	}
	if res.Code != 1 || json.Unmarshal([]byte(res.Stdout), &rep) != nil {
		t.Fatalf("every result flipped: exit %d, want 1\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	var failed []string
	for _, c := range rep.Cases {
		if c.Status == "failed" {
			failed = append(failed, c.Name)
		}
	}
	if !slices.Equal(failed, want) {
		t.Errorf("every result flipped: failed %q, want %q", failed, want)
	}
}

// serverPolicies installs policies in the test cluster, one at a time,
// and knows when its admission has them.
type serverPolicies struct {
	client   dynamic.Interface
	mapper   meta.RESTMapper
	round    int
	warnings *warningRecorder
	// user sends the dry-run creates: the Test's userinfo, impersonated
	// (nil: the test cluster's user).
	user dynamic.Interface
}

// as makes the Test's UserInfo file (none: "") who sends the dry runs.
func (s *serverPolicies) as(t *testing.T, dir, userInfo string) {
	t.Helper()
	s.user = nil
	if userInfo == "" {
		return
	}
	info := objectsOf(t, dir, userInfo)[0]
	name, _, _ := unstructured.NestedString(info.Object, "userInfo", "username")
	groups, _, _ := unstructured.NestedStringSlice(info.Object, "userInfo", "groups")
	config := rest.CopyConfig(testCluster.Config)
	config.WarningHandler = s.warnings
	config.Impersonate = rest.ImpersonationConfig{UserName: name, Groups: groups}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	s.user = client
}

func newServerPolicies(t *testing.T) *serverPolicies {
	config := rest.CopyConfig(testCluster.Config)
	w := &warningRecorder{}
	config.WarningHandler = w
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	dc, err := discovery.NewDiscoveryClientForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &serverPolicies{client: client, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), warnings: w}
}

var admissionV1 = schema.GroupVersion{Group: "admissionregistration.k8s.io", Version: "v1"}

// objectsOf reads the objects of the Test's files.
func objectsOf(t *testing.T, dir string, files ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, f := range files {
		out = append(out, readObjects(t, filepath.Join(dir, f))...)
	}
	return out
}

// setUp creates the Test's namespaces (with their labels) and params.
func (s *serverPolicies) setUp(t *testing.T, dir string, test kyvernoTest) {
	t.Helper()
	ctx := context.Background()
	var namespaces []*unstructured.Unstructured
	selectors := test.Values
	if test.Variables != "" {
		for _, v := range objectsOf(t, dir, test.Variables) {
			list, _, _ := unstructured.NestedSlice(v.Object, "namespaceSelector")
			for _, e := range list {
				m := e.(map[string]any)
				labels, _ := m["labels"].(map[string]any)
				namespaces = append(namespaces, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
					"metadata": map[string]any{"name": m["name"], "labels": labels}}})
			}
		}
	}
	if selectors != nil {
		for _, n := range selectors.NamespaceSelector {
			labels := map[string]any{}
			for k, v := range n.Labels {
				labels[k] = v
			}
			namespaces = append(namespaces, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace",
				"metadata": map[string]any{"name": n.Name, "labels": labels}}})
		}
	}
	for _, group := range [][]*unstructured.Unstructured{namespaces, objectsOf(t, dir, test.ParamResources...)} {
		for _, o := range group {
			if err := testCluster.CreateObjects(ctx, o); err != nil && !apierrors.IsAlreadyExists(err) && !strings.Contains(err.Error(), "already exists") {
				t.Fatal(err)
			}
		}
	}
}

// answers are the server's answers for each result and resource.
func (s *serverPolicies) answers(t *testing.T, dir string, test kyvernoTest) map[resultKey]string {
	t.Helper()
	config := objectsOf(t, dir, test.Policies...)
	resources := objectsOf(t, dir, test.Resources...)
	find := func(kind, name string) *unstructured.Unstructured {
		ns, n, qualified := strings.Cut(name, "/")
		if !qualified {
			n = ns
		}
		for _, o := range resources {
			namespace := o.GetNamespace()
			if namespace == "" {
				namespace = "default"
			}
			if o.GetKind() == kind && o.GetName() == n && (!qualified || namespace == ns) {
				return o
			}
		}
		t.Fatalf("no %s %s in %s", kind, name, dir)
		return nil
	}
	out := map[resultKey]string{}
	var order []string
	for _, r := range test.Results {
		if !slices.Contains(order, r.Policy) {
			order = append(order, r.Policy)
		}
	}
	s.as(t, dir, test.UserInfo)
	defer s.as(t, dir, "")
	for _, policy := range order {
		parts := policyParts(config, policy)
		// The mutating policies change an object before a validating
		// policy sees it: installed beside each.
		if !slices.ContainsFunc(parts, func(o *unstructured.Unstructured) bool { return o.GetKind() == "MutatingAdmissionPolicy" }) {
			for _, o := range config {
				if strings.HasPrefix(o.GetKind(), "MutatingAdmissionPolicy") {
					parts = append(parts, o.DeepCopy())
				}
			}
		}
		var objects []*unstructured.Unstructured
		var keys []resultKey
		for i, r := range test.Results {
			if r.Policy != policy {
				continue
			}
			for _, name := range resultNames(r.Resources, r.Resource, r.Namespace) {
				objects = append(objects, find(r.Kind, name))
				keys = append(keys, resultKey{i, name})
			}
		}
		baseline := s.dryRuns(t, objects)
		// A mutating policy's probe is installed alone: beside the
		// policy, it would see the object as the policy leaves it.
		var real, probed []answer
		if validating := slices.ContainsFunc(config, func(o *unstructured.Unstructured) bool {
			return o.GetKind() == "ValidatingAdmissionPolicy" && o.GetName() == policy
		}); validating {
			real = s.withInstalled(t, append(parts, probeOf(policyParts(config, policy))...), func() []answer { return s.dryRuns(t, objects) })
			probed = real
		} else {
			real = s.withInstalled(t, parts, func() []answer { return s.dryRuns(t, objects) })
			probed = s.withInstalled(t, probeOf(policyParts(config, policy)), func() []answer { return s.dryRuns(t, objects) })
		}
		for k, key := range keys {
			err := real[k].err
			switch {
			case err != nil && (strings.Contains(err.Error(), "'"+policy+"'") || strings.Contains(err.Error(), "'"+policy+"-probe'")):
				out[key] = "fail: " + err.Error()
			case err != nil:
				t.Fatalf("%s: the server refuses %s for another cause: %v", policy, key.name, err)
			case slices.ContainsFunc(probed[k].warnings, func(w string) bool { return strings.Contains(w, "'"+policy+"-probe'") }):
				out[key] = "pass"
			default:
				out[key] = "skip"
			}
			if p := test.Results[key.result].PatchedResources; p != "" && out[key] == "pass" {
				checkPatched(t, objectsOf(t, dir, p), baseline[k].obj, real[k].obj)
			}
		}
	}
	return out
}

// answer is the server's answer to one dry-run create.
type answer struct {
	obj      map[string]any
	err      error
	warnings []string
}

// dryRuns creates each object with dryRun (in its namespace, default
// when unset), as kubectl crd checks a create.
func (s *serverPolicies) dryRuns(t *testing.T, objects []*unstructured.Unstructured) []answer {
	t.Helper()
	out := make([]answer, len(objects))
	for i, o := range objects {
		s.warnings.reset()
		got, err := createOnceReady(context.Background(), s.resourceAs(t, o, s.user), o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
		out[i].err, out[i].warnings = err, s.warnings.list()
		if got != nil {
			out[i].obj = got.Object
		}
	}
	return out
}

func (s *serverPolicies) resource(t *testing.T, o *unstructured.Unstructured) dynamic.ResourceInterface {
	t.Helper()
	return s.resourceAs(t, o, nil)
}

// resourceAs is o's resource through client (nil: the test cluster's).
func (s *serverPolicies) resourceAs(t *testing.T, o *unstructured.Unstructured, client dynamic.Interface) dynamic.ResourceInterface {
	t.Helper()
	if client == nil {
		client = s.client
	}
	gvk := o.GroupVersionKind()
	m, err := s.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Fatal(err)
	}
	if m.Scope.Name() != meta.RESTScopeNameNamespace {
		return client.Resource(m.Resource)
	}
	ns := o.GetNamespace()
	if ns == "" {
		ns = "default"
	}
	return client.Resource(m.Resource).Namespace(ns)
}

// policyParts are the policy named and its bindings, from config.
func policyParts(config []*unstructured.Unstructured, policy string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range config {
		name, _, _ := unstructured.NestedString(o.Object, "spec", "policyName")
		if o.GroupVersionKind().GroupVersion() == admissionV1 && (o.GetName() == policy && strings.HasSuffix(o.GetKind(), "Policy") || name == policy) {
			out = append(out, o.DeepCopy())
		}
	}
	return out
}

// probeOf is the probe of a policy's parts, installed beside them: a
// ValidatingAdmissionPolicy NAME-probe with the policy's paramKind,
// matchConstraints, matchConditions, variables and failurePolicy, whose
// one validation is false, and bindings NAME-probe of it with the same
// paramRef and matchResources that warn: the server warns of exactly the
// objects it evaluates the policy for.
func probeOf(parts []*unstructured.Unstructured) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, o := range parts {
		spec, _, _ := unstructured.NestedMap(o.Object, "spec")
		probe := map[string]any{}
		if strings.HasSuffix(o.GetKind(), "Binding") {
			for _, k := range []string{"paramRef", "matchResources"} {
				if v, ok := spec[k]; ok {
					probe[k] = v
				}
			}
			probe["policyName"] = spec["policyName"].(string) + "-probe"
			probe["validationActions"] = []any{"Warn"}
			out = append(out, &unstructured.Unstructured{Object: map[string]any{"apiVersion": admissionV1.String(), "kind": "ValidatingAdmissionPolicyBinding",
				"metadata": map[string]any{"name": o.GetName() + "-probe"}, "spec": probe}})
			continue
		}
		for _, k := range []string{"paramKind", "matchConstraints", "matchConditions", "variables", "failurePolicy"} {
			if v, ok := spec[k]; ok {
				probe[k] = v
			}
		}
		probe["validations"] = []any{map[string]any{"expression": "false", "message": "evaluated"}}
		out = append(out, &unstructured.Unstructured{Object: map[string]any{"apiVersion": admissionV1.String(), "kind": "ValidatingAdmissionPolicy",
			"metadata": map[string]any{"name": o.GetName() + "-probe"}, "spec": probe}})
	}
	return out
}

// withInstalled installs parts (policies before bindings) and a canary
// installed after them, waits until the server's admission denies the
// canary's object (then it has the parts too: its policies are read in
// the order they were written), runs do, and removes them all.
func (s *serverPolicies) withInstalled(t *testing.T, parts []*unstructured.Unstructured, do func() []answer) []answer {
	t.Helper()
	ctx := context.Background()
	s.round++
	round := fmt.Sprint(s.round)
	canary := []*unstructured.Unstructured{
		{Object: map[string]any{"apiVersion": admissionV1.String(), "kind": "ValidatingAdmissionPolicy", "metadata": map[string]any{"name": "t77-canary"},
			"spec": map[string]any{"matchConstraints": map[string]any{"objectSelector": map[string]any{"matchLabels": map[string]any{"t77-canary": round}},
				"resourceRules": []any{map[string]any{"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE"}, "resources": []any{"configmaps"}}}},
				"validations": []any{map[string]any{"expression": "false", "message": "canary"}}}}},
		{Object: map[string]any{"apiVersion": admissionV1.String(), "kind": "ValidatingAdmissionPolicyBinding", "metadata": map[string]any{"name": "t77-canary"},
			"spec": map[string]any{"policyName": "t77-canary", "validationActions": []any{"Deny"}}}},
	}
	var ordered []*unstructured.Unstructured
	for _, bindings := range []bool{false, true} {
		for _, o := range parts {
			if strings.HasSuffix(o.GetKind(), "Binding") == bindings {
				ordered = append(ordered, o)
			}
		}
	}
	ordered = append(ordered, canary...)
	remove := func() {
		for _, o := range slices.Backward(ordered) {
			if err := s.resource(t, o).Delete(ctx, o.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting %s %s: %v", o.GetKind(), o.GetName(), err)
			}
		}
	}
	for _, o := range ordered {
		if _, err := s.resource(t, o).Create(ctx, o, metav1.CreateOptions{}); err != nil {
			remove()
			t.Fatalf("creating %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}
	defer remove()
	probe := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "t77-canary", "labels": map[string]any{"t77-canary": round}}}}
	deadline := time.Now().Add(time.Minute)
	for {
		_, err := s.resource(t, probe).Create(ctx, probe.DeepCopy(), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && strings.Contains(err.Error(), "canary") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server's admission did not take the policies within a minute: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return do()
}

// checkPatched: the object as the server returns it under the mutating
// policy holds every field of the patched resource, and every field the
// policy changed (from the object the server returns without it) is the
// patched resource's.
func checkPatched(t *testing.T, patched []*unstructured.Unstructured, baseline, mutated map[string]any) {
	t.Helper()
	if len(patched) != 1 || baseline == nil || mutated == nil {
		t.Fatalf("%d patched resources, baseline %v, mutated %v", len(patched), baseline != nil, mutated != nil)
	}
	want := patched[0].Object
	if got := project(mutated, want); !reflect.DeepEqual(got, plainJSON(want)) {
		t.Errorf("the server's mutated object, where the patched resource has fields:\n%v\npatched resource:\n%v", got, want)
	}
	for _, path := range changedPaths(baseline, mutated, "") {
		if path == "metadata.uid" || path == "metadata.creationTimestamp" || path == "metadata.managedFields" {
			continue
		}
		if !hasPath(want, path) {
			t.Errorf("the server's mutation sets %s, which the patched resource lacks", path)
		}
	}
}

// project keeps of got the fields want has, as JSON values.
func project(got, want any) any {
	g, w := plainJSON(got), plainJSON(want)
	if gl, ok := g.([]any); ok {
		if wl, ok := w.([]any); ok && len(gl) == len(wl) {
			out := make([]any, len(gl))
			for i := range gl {
				out[i] = project(gl[i], wl[i])
			}
			return out
		}
		return g
	}
	gm, ok1 := g.(map[string]any)
	wm, ok2 := w.(map[string]any)
	if !ok1 || !ok2 {
		return g
	}
	out := map[string]any{}
	for k, wv := range wm {
		if gv, ok := gm[k]; ok {
			out[k] = project(gv, wv)
		}
	}
	return out
}

func plainJSON(v any) any {
	b, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// changedPaths are the paths of the leaves (and lists) that differ.
func changedPaths(a, b any, at string) []string {
	am, ok1 := plainJSON(a).(map[string]any)
	bm, ok2 := plainJSON(b).(map[string]any)
	if !ok1 || !ok2 {
		if reflect.DeepEqual(plainJSON(a), plainJSON(b)) {
			return nil
		}
		return []string{at}
	}
	var out []string
	for k := range bm {
		out = append(out, changedPaths(am[k], bm[k], strings.TrimPrefix(at+"."+k, "."))...)
	}
	return out
}

func hasPath(obj map[string]any, path string) bool {
	var cur any = obj
	for _, part := range strings.Split(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[part]; !ok {
			return false
		}
	}
	return true
}
