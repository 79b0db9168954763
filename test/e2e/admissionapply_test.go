package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// applyDir holds the admission configuration and objects of
// TestAdmissionAsApplied.
var applyDir = filepath.Join("..", "testdata", "admission")

// TestAdmissionAsApplied: admission as the cluster applies it. The
// server gets the policies, bindings, params (a Gatekeeper-style
// constraint, cluster-scoped, at two versions; a namespaced custom
// resource with no namespace, applied into the namespace of -n) and
// namespaces, then each object as kubectl apply -n t73-prod sends it: a
// Namespace of the input is created, every other object is a dry-run
// create in its own namespace or t73-prod. kubectl crd validate -n
// t73-prod must answer each alike, offline from the same files and
// online from the cluster: denied or allowed, with the same message (a
// mutation the server refuses with its reason and text, and the policy
// named). Both sides deny some and allow others. Offline, the
// configurations that can never fire are warned of once, at their line.
func TestAdmissionAsApplied(t *testing.T) {
	ctx := context.Background()
	dir, err := filepath.Abs(applyDir)
	if err != nil {
		t.Fatal(err)
	}
	crds, policiesFile, objectsFile := filepath.Join(dir, "crds.yaml"), filepath.Join(dir, "policies.yaml"), filepath.Join(dir, "objects.yaml")
	if _, err := testCluster.LoadCRDs(ctx, crds); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	if err := applyPolicies(t, policiesFile, "t73-prod"); err != nil {
		t.Fatal(err)
	}
	objects := readObjects(t, objectsFile)
	server := serverApplyAnswers(t, objects, "t73-prod")

	offline := bin.Run(t, "kubectl-crd", nil, "validate", "--offline", "-n", "t73-prod", "--crds", crds, "--policies", policiesFile, "-f", objectsFile, "-o", "json")
	online := bin.Run(t, "kubectl-crd", nil, "validate", "-n", "t73-prod", "-f", objectsFile, "-o", "json")
	for _, run := range []struct {
		name string
		res  harness.Result
	}{{"offline", offline}, {"online", online}} {
		t.Run(run.name, func(t *testing.T) {
			ours := clientApplyAnswers(t, run.res)
			if len(ours) != len(server) {
				t.Fatalf("kubectl crd gave %d answers for %d objects:\n%s%s", len(ours), len(server), run.res.Stdout, run.res.Stderr)
			}
			denied, allowed := 0, 0
			for i := range server {
				name := objects[i].GetKind() + "/" + objects[i].GetName()
				switch {
				case slices.Equal(server[i], ours[i]):
				case otherFirstDenial(policyAnswer{Causes: server[i]}, policyAnswer{Causes: ours[i]}):
				default:
					t.Errorf("%s:\n  server:      %q\n  kubectl crd: %q", name, server[i], ours[i])
				}
				if len(server[i]) > 0 {
					denied++
				} else {
					allowed++
				}
			}
			t.Logf("%d objects: %d denied, %d allowed; server: %q", len(server), denied, allowed, server)
			if denied < 5 || allowed < 3 {
				t.Errorf("the cases prove little: %d denied, %d allowed", denied, allowed)
			}
		})
	}
	if !strings.Contains(offline.Stdout, "(the object as MutatingAdmissionPolicy 't73-wrong-type' made it)") {
		t.Errorf("the refused mutation does not name its policy:\n%s", offline.Stdout)
	}
	lines := readLines(t, policiesFile)
	for _, want := range []struct{ at, says string }{
		{"resources: [deployment]}", `spec.matchConstraints.resourceRules[0]: no resource served matches apiGroups ["apps"], apiVersions ["v1"], resources ["deployment"]`},
		{"policyName: t73-no-such-policy", `spec.policyName: ValidatingAdmissionPolicy "t73-no-such-policy" is not given: the binding does nothing`},
		{"paramRef: {name: t73-nowhere", `spec.paramRef: the param ConfigMap "t73-nowhere" in namespace t73-params is not given: the binding denies every request it matches`},
		{"- expression: \"authorizer.", `spec.validations[0].expression: calls authorizer`},
	} {
		line := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, want.at) }) + 1
		prefix := fmt.Sprintf("%s:%d:", policiesFile, line)
		if n := countLines(offline.Stderr, prefix, want.says); n != 1 {
			t.Errorf("warned %d times at %s of %q; want once:\n%s", n, prefix, want.says, offline.Stderr)
		}
	}
	if n := strings.Count(offline.Stderr, `namespace "t73-plain" is not given`); n != 1 {
		t.Errorf("the namespace made up from its name was warned of %d times; want once:\n%s", n, offline.Stderr)
	}
	for _, never := range []string{`namespace "t73-prod" is not given`, `namespace "t73-bundle" is not given`, "t73-no-priv-esc", "t73-limits"} {
		if strings.Contains(offline.Stderr, never) {
			t.Errorf("warned of %q, which is given:\n%s", never, offline.Stderr)
		}
	}
}

// readObjects reads the objects of a file.
func readObjects(t *testing.T, path string) []*unstructured.Unstructured {
	t.Helper()
	docs, err := manifest.ReadPaths([]string{path}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for i := range docs {
		obj, err := docs[i].TakeObject()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, &unstructured.Unstructured{Object: obj})
	}
	return out
}

func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(data), "\n")
}

func countLines(text, prefix, says string) int {
	n := 0
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, prefix) && strings.Contains(l, says) {
			n++
		}
	}
	return n
}

// applyPolicies creates the objects of path in the server as kubectl
// apply -n ns would (namespaces, CRD params and params first, then
// policies, then bindings), and waits until the server's admission has
// them: a probe pod that escalates is refused by the constraint's
// binding, and a probe deployment by the last binding. The policies and
// bindings are deleted when the test ends: the other tests' online
// checks would read them.
func applyPolicies(t *testing.T, path, ns string) error {
	ctx := context.Background()
	docs, err := manifest.ReadPaths([]string{path}, false, nil)
	if err != nil {
		return err
	}
	var first, params, policies, bindings []*unstructured.Unstructured
	for i := range docs {
		obj, err := docs[i].TakeObject()
		if err != nil {
			return err
		}
		u := &unstructured.Unstructured{Object: obj}
		switch {
		case u.GetKind() == "Namespace":
			first = append(first, u)
		case strings.HasSuffix(u.GetKind(), "Binding"):
			bindings = append(bindings, u)
		case strings.HasSuffix(u.GetKind(), "Policy"):
			policies = append(policies, u)
		default:
			params = append(params, u)
		}
	}
	plain := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "t73-plain"}}}
	first = append(first, plain)
	for _, p := range params {
		if p.GetKind() == "ReplicaLimit" && p.GetNamespace() == "" {
			p.SetNamespace(ns)
		}
	}
	client, err := dynamic.NewForConfig(testCluster.Config)
	if err != nil {
		return err
	}
	t.Cleanup(func() {
		for _, o := range append(slices.Clone(bindings), policies...) {
			gvr := schema.GroupVersionResource{Group: "admissionregistration.k8s.io", Version: "v1", Resource: strings.ToLower(o.GetKind()) + "s"}
			if strings.HasSuffix(o.GetKind(), "Policy") {
				gvr.Resource = strings.TrimSuffix(strings.ToLower(o.GetKind()), "y") + "ies"
			}
			if err := client.Resource(gvr).Delete(ctx, o.GetName(), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				t.Errorf("deleting %s %s: %v", o.GetKind(), o.GetName(), err)
			}
		}
	})
	for _, group := range [][]*unstructured.Unstructured{first, params, policies, bindings} {
		if err := testCluster.CreateObjects(ctx, group...); err != nil && !apierrors.IsAlreadyExists(err) && !strings.Contains(err.Error(), "already exists") {
			return err
		}
	}
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	probe := func() error {
		pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "t73-probe", "labels": map[string]any{"t73": "yes"}},
			"spec":     map[string]any{"containers": []any{map[string]any{"name": "p", "image": "p", "securityContext": map[string]any{"allowPrivilegeEscalation": true}}}}}}
		_, err := client.Resource(pods).Namespace(ns).Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), "Privilege escalation") {
			return fmt.Errorf("the constraint's binding does not deny yet: %v", err)
		}
		deploy := deployment("t73-probe", "t73-plain", 3)
		deploy.SetLabels(map[string]string{"t73": "yes", "absent": "yes"})
		_, err = client.Resource(deployments).Namespace("t73-plain").Create(ctx, deploy, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
		if err == nil || !strings.Contains(err.Error(), "no params found") {
			return fmt.Errorf("the last binding does not deny yet: %v", err)
		}
		return nil
	}
	deadline := time.Now().Add(time.Minute)
	for {
		err := probe()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the server's admission did not take the policies within a minute: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// serverApplyAnswers sends each object as kubectl apply -n ns would: a
// Namespace is created, every other object is a dry-run create in its
// namespace, else ns. An answer is the refusal's causes: a denial by
// its message, a refusal without causes by REASON: TEXT.
func serverApplyAnswers(t *testing.T, objects []*unstructured.Unstructured, ns string) [][]string {
	t.Helper()
	ctx := context.Background()
	client, err := dynamic.NewForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	resources := map[string]schema.GroupVersionResource{
		"Pod":        {Version: "v1", Resource: "pods"},
		"Namespace":  {Version: "v1", Resource: "namespaces"},
		"Deployment": {Group: "apps", Version: "v1", Resource: "deployments"},
	}
	var out [][]string
	for _, o := range objects {
		gvr, ok := resources[o.GetKind()]
		if !ok {
			t.Fatalf("no resource for %s", o.GetKind())
		}
		var err error
		if o.GetKind() == "Namespace" {
			_, err = client.Resource(gvr).Create(ctx, o.DeepCopy(), metav1.CreateOptions{})
			if apierrors.IsAlreadyExists(err) {
				err = nil // a run before this one's
			}
		} else {
			namespace := o.GetNamespace()
			if namespace == "" {
				namespace = ns
			}
			_, err = createOnceReady(ctx, client.Resource(gvr).Namespace(namespace), o, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
		}
		out = append(out, refusal(err))
	}
	return out
}

func refusal(err error) []string {
	var se *apierrors.StatusError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &se):
		return []string{"error " + err.Error()}
	case se.ErrStatus.Reason != metav1.StatusReasonInternalError && se.ErrStatus.Details != nil && len(se.ErrStatus.Details.Causes) > 0:
		var out []string
		for _, c := range se.ErrStatus.Details.Causes {
			out = append(out, cause(c.Field, string(c.Type), c.Message))
		}
		slices.Sort(out)
		return out
	}
	return []string{string(se.ErrStatus.Reason) + ": " + se.ErrStatus.Message}
}

// madeBy is what kubectl crd adds to the server's text of a refusal that
// a mutating policy caused.
var madeBy = regexp.MustCompile(` \(the object as MutatingAdmissionPolicy '[^']*' made it\)$`)

// clientApplyAnswers are kubectl crd validate -o json's answers, in the
// form of serverApplyAnswers'.
func clientApplyAnswers(t *testing.T, res harness.Result) [][]string {
	t.Helper()
	if res.Code != 0 && res.Code != 1 {
		t.Fatalf("exit %d: %s", res.Code, res.Stderr)
	}
	var report validate.Report
	if err := json.Unmarshal([]byte(res.Stdout), &report); err != nil {
		t.Fatalf("%v: %s", err, res.Stdout)
	}
	var out [][]string
	for _, r := range report.Results {
		var causes []string
		for _, e := range r.Errors {
			if e.Field == "" && e.Policy != "" && madeBy.MatchString(e.Message) {
				causes = append(causes, e.Type+": "+madeBy.ReplaceAllString(e.Message, ""))
				continue
			}
			causes = append(causes, cause(e.Field, e.Type, e.Message))
		}
		slices.Sort(causes)
		out = append(out, causes)
	}
	return out
}

// TestClusterPoliciesUnreadable: online, admission is read from the
// cluster. A cluster that does not serve admissionregistration.k8s.io
// has no policies: validate answers as with --no-policies, and says
// nothing of it. A user who may not list the policies (through
// --as) gets the same answers, one warning on stderr, the notice in
// every machine output, and with --require-policies exit 2.
func TestClusterPoliciesUnreadable(t *testing.T) {
	ctx := context.Background()
	dir, err := filepath.Abs(applyDir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := testCluster.LoadCRDs(ctx, filepath.Join(dir, "crds.yaml")); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	if err := applyPolicies(t, filepath.Join(dir, "policies.yaml"), "t73-prod"); err != nil {
		t.Fatal(err)
	}
	objects := filepath.Join(dir, "objects.yaml")
	validateAs := func(flags ...string) harness.Result {
		return bin.Run(t, "kubectl-crd", nil, append([]string{"validate", "-n", "t73-prod", "-f", objects}, flags...)...)
	}
	admitted := validateAs("-o", "json")
	without := validateAs("--no-policies", "-o", "json")
	if admitted.Code != 1 || without.Code != 0 {
		t.Fatalf("with the cluster's policies exit %d, without %d; want 1 and 0:\n%s%s", admitted.Code, without.Code, admitted.Stdout, admitted.Stderr)
	}

	t.Run("not served", func(t *testing.T) {
		testCluster.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
			if !strings.HasPrefix(r.URL.Path, "/apis/admissionregistration.k8s.io/") {
				return false
			}
			status(http.StatusNotFound, "", statusBody(http.StatusNotFound, "NotFound", "the server could not find the requested resource"))(w, r)
			return true
		})
		defer testCluster.SetHook(nil)
		got := validateAs("-o", "json")
		if got.Code != without.Code || got.Stdout != without.Stdout || got.Stderr != "" {
			t.Errorf("against a server without admission policies: exit %d, stderr %q; want --no-policies' answers (exit %d) and nothing said:\n%s",
				got.Code, got.Stderr, without.Code, got.Stdout)
		}
	})

	t.Run("forbidden", func(t *testing.T) {
		// The test cluster authorizes every request; the front answers
		// t73-reader's lists of admission policies as RBAC would.
		testCluster.SetHook(func(w http.ResponseWriter, r *http.Request) bool {
			const group = "admissionregistration.k8s.io"
			resource := strings.TrimPrefix(r.URL.Path, "/apis/"+group+"/v1/")
			if r.Header.Get("Impersonate-User") != "t73-reader" || resource == r.URL.Path {
				return false
			}
			status(http.StatusForbidden, "", statusBody(http.StatusForbidden, "Forbidden",
				fmt.Sprintf(`%s.%s is forbidden: User "t73-reader" cannot list resource %q in API group %q at the cluster scope`, resource, group, resource, group)))(w, r)
			return true
		})
		defer testCluster.SetHook(nil)
		as := []string{"--as", "t73-reader"}
		got := validateAs(append(as, "-o", "json")...)
		var report validate.Report
		if err := json.Unmarshal([]byte(got.Stdout), &report); err != nil {
			t.Fatalf("exit %d: %v\n%s%s", got.Code, err, got.Stdout, got.Stderr)
		}
		var plain validate.Report
		if err := json.Unmarshal([]byte(without.Stdout), &plain); err != nil {
			t.Fatal(err)
		}
		const says = `admission policies were not checked: cannot list validatingadmissionpolicies.admissionregistration.k8s.io of the cluster, which admission reads`
		if got.Code != without.Code || !reflect.DeepEqual(report.Results, plain.Results) {
			t.Errorf("a user who may not list the policies: exit %d; want --no-policies' answers (exit %d)\n%s", got.Code, without.Code, got.Stdout)
		}
		if strings.Count(got.Stderr, says) != 1 || !strings.Contains(got.Stderr, `User "t73-reader" cannot list resource "validatingadmissionpolicies"`) {
			t.Errorf("stderr says %q; want the notice once, with the server's refusal", got.Stderr)
		}
		if len(report.NotChecked) != 1 || !strings.HasPrefix(report.NotChecked[0], says) {
			t.Errorf("JSON notChecked %q", report.NotChecked)
		}
		sarif := validateAs(append(as, "-o", "sarif")...)
		var log struct {
			Runs []struct {
				Invocations []struct {
					Notifications []struct {
						Level   string
						Message struct{ Text string }
					} `json:"toolExecutionNotifications"`
				}
			}
		}
		if err := json.Unmarshal([]byte(sarif.Stdout), &log); err != nil || len(log.Runs) != 1 || len(log.Runs[0].Invocations) != 1 ||
			len(log.Runs[0].Invocations[0].Notifications) != 1 || !strings.HasPrefix(log.Runs[0].Invocations[0].Notifications[0].Message.Text, says) {
			t.Errorf("SARIF without the notification (%v):\n%s", err, sarif.Stdout)
		}
		junit := validateAs(append(as, "-o", "junit")...)
		if !strings.Contains(junit.Stdout, `<property name="notChecked" value="`+says) {
			t.Errorf("JUnit without the property:\n%s", junit.Stdout)
		}
		github := validateAs(append(as, "-o", "github")...)
		if !strings.Contains(github.Stdout, "::warning title=Not checked::"+says) {
			t.Errorf("GitHub annotations without the notice:\n%s", github.Stdout)
		}
		strict := validateAs(append(as, "--require-policies")...)
		if strict.Code != 2 || !strings.Contains(strict.Stderr, "cannot list validatingadmissionpolicies.admissionregistration.k8s.io") {
			t.Errorf("--require-policies: exit %d, %q; want 2 and the refusal", strict.Code, strict.Stderr)
		}
	})
}
