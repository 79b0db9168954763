package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

// TestValidateMatchesServerDryRun runs kubectl crd validate -o json online
// over the test objects, the examples, updates of live objects (transition
// rules) and broken CRDs, and compares each result with the server's dry
// run of the same request (strict field validation): a create, the patch
// kubectl apply sends for a live object, or a create of the CRD. The
// verdict and the set of (field, type) must be equal.
func TestValidateMatchesServerDryRun(t *testing.T) {
	ctx := context.Background()
	updates := filepath.Join(repoRoot, "test/testdata/updates")
	if _, err := testCluster.Load(ctx, filepath.Join(updates, "ledgers.crd.yaml"), filepath.Join(updates, "ledgers.old.yaml")); err != nil {
		t.Fatal(err)
	}
	// A rule that runs past the per-call cost limit on a long list.
	runaway := filepath.Join(repoRoot, "test/testdata/runaway")
	if _, err := testCluster.LoadCRDs(ctx, filepath.Join(runaway, "crd.yaml")); err != nil {
		t.Fatal(err)
	}
	// Metadata with unknown, misspelt, misplaced and mistyped fields, at
	// the top and in an embedded resource.
	metadata := filepath.Join(repoRoot, "test/testdata/metadata")
	paths := []string{objectDir, filepath.Join(repoRoot, "examples/objects"), filepath.Join(updates, "ledgers.new.yaml"), filepath.Join(repoRoot, "test/testdata/badcrds"), filepath.Join(runaway, "pairings.yaml"), metadata}
	report := validate.Report{Results: validateJSON(t, paths...)}
	docs, err := manifest.ReadPaths(paths, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != len(report.Results) {
		t.Fatalf("%d documents, %d results", len(docs), len(report.Results))
	}
	server, err := harness.NewDryRunner(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	agree, operations := 0, map[string]int{}
	for i, res := range report.Results {
		d := docs[i]
		t.Run(d.Pos(), func(t *testing.T) {
			if res.Status == "skipped" || res.Status == "error" {
				t.Fatalf("%s: %s", res.Status, res.Reason)
			}
			operations[res.Operation+" "+res.Kind]++
			got := harness.Causes(res)
			want := harness.ServerCauses(server.Run(t, d.JSON, res.Operation))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s %s/%s: kubectl crd validate %q\nserver dry run %q", res.Operation, res.Kind, res.Name, got, want)
				return
			}
			agree++
		})
	}
	t.Logf("%d objects (%v): kubectl crd validate and the server agree on %d", len(docs), operations, agree)
	if operations["create Feature"] < 8 {
		t.Errorf("operations %v: want the metadata cases checked", operations)
	}
	if operations["update Ledger"] != 3 || operations["create CustomResourceDefinition"] != 4 {
		t.Errorf("operations %v: want the 3 ledgers that exist checked as updates and the 4 CRDs as creates", operations)
	}
}

// TestValidateCommand checks the command's text report (file, line,
// column, field, the server's message), JSON report, CRDs from the input,
// online against offline, and exit codes.
func TestValidateCommand(t *testing.T) {
	invalid := filepath.Join(repoRoot, "examples/objects/invalid/crontabs.yaml")
	offline := []string{"KUBECONFIG="}
	r := bin.Run(t, "kubectl-crd", offline, "validate", "-f", invalid, "--crds", crdDirs[1])
	want := []string{
		invalid + `:7:3: spec.cronSpec: Invalid value: "every night": spec.cronSpec in body should match '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'`,
		invalid + `:14:3: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`,
		invalid + `:22:3: spec.replicas: Invalid value: replicas must be at least minReplicas`,
		invalid + `:28:1: spec: Invalid value: replicas must not exceed maxReplicas`,
		invalid + `:38:3: spec.schedule: unknown field "spec.schedule"`,
		`0 valid, 5 invalid, 0 skipped, 0 errors`,
	}
	if r.Code != 1 || r.Stdout != strings.Join(want, "\n")+"\n" {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", r.Code, r.Stdout, strings.Join(want, "\n"))
	}
	online := bin.Run(t, "kubectl-crd", nil, "validate", "-f", invalid)
	if online.Stdout != r.Stdout || online.Code != 1 {
		t.Errorf("online (exit %d) differs from offline:\n%s", online.Code, online.Stdout)
	}

	// CRDs in the input, JSON output, warnings for unknown fields.
	both := bin.Run(t, "kubectl-crd", offline, "validate", "-f", crdDirs[1], "-f", filepath.Join(repoRoot, "examples/objects"), "-R", "-o", "json", "--validate", "warn")
	var report validate.Report
	if err := json.Unmarshal([]byte(both.Stdout), &report); err != nil {
		t.Fatalf("-o json: %v\n%s", err, both.Stdout)
	}
	if both.Code != 1 || report.Summary != (validate.Summary{Valid: 5, Invalid: 4}) {
		t.Errorf("exit %d, summary %+v", both.Code, report.Summary)
	}
	for _, res := range report.Results {
		if res.Name == "unknown-field" && (res.Status != "valid" || len(res.Warnings) != 1 || res.Warnings[0].Type != "FieldValueUnknown" || res.Warnings[0].Line != 38) {
			t.Errorf("unknown field with --validate=warn: %+v", res)
		}
	}

	valid := bin.Run(t, "kubectl-crd", offline, "validate", "-f", filepath.Join(repoRoot, "examples/objects/valid"), "--crds", crdDirs[1])
	if valid.Code != 0 || !strings.HasSuffix(valid.Stdout, "3 valid, 0 invalid, 0 skipped, 0 errors\n") {
		t.Errorf("valid objects: exit %d\n%s%s", valid.Code, valid.Stdout, valid.Stderr)
	}
	bad := bin.Run(t, "kubectl-crd", offline, "validate", "-f", filepath.Join(repoRoot, "test/testdata/bad/malformed.yaml"), "--crds", crdDirs[1])
	if bad.Code != 2 || !strings.Contains(bad.Stdout, "malformed.yaml:7: error: invalid YAML") {
		t.Errorf("unreadable input: exit %d, %s%s", bad.Code, bad.Stdout, bad.Stderr)
	}
	gadget := filepath.Join(t.TempDir(), "gadget.yaml")
	writeFile(t, gadget, "apiVersion: example.org/v1\nkind: Gadget\nmetadata: {name: g}\n")
	// Nothing checked is not a green run, unless asked for.
	skipped := bin.Run(t, "kubectl-crd", offline, "validate", "-f", gadget, "--crds", crdDirs[1])
	if skipped.Code != 2 || !strings.Contains(skipped.Stdout, "Gadget/g: skipped: no CustomResourceDefinition for Gadget.example.org") ||
		!strings.HasPrefix(skipped.Stderr, "error: nothing was checked: every object was skipped") {
		t.Errorf("an object of a kind without CRD: exit %d\n%s%s", skipped.Code, skipped.Stdout, skipped.Stderr)
	}
	if allowed := bin.Run(t, "kubectl-crd", offline, "validate", "-f", gadget, "--crds", crdDirs[1], "--allow-skip-all"); allowed.Code != 0 || allowed.Stderr != "" {
		t.Errorf("--allow-skip-all: exit %d\n%s", allowed.Code, allowed.Stderr)
	}
	withValid := bin.Run(t, "kubectl-crd", offline, "validate", "-f", gadget, "-f", filepath.Join(repoRoot, "examples/objects/valid"), "--crds", crdDirs[1])
	if withValid.Code != 0 {
		t.Errorf("a skipped object beside checked ones: exit %d\n%s", withValid.Code, withValid.Stderr)
	}

	// A kustomization: the objects it builds, in the namespace it sets.
	kdir := t.TempDir()
	writeFile(t, filepath.Join(kdir, "kustomization.yaml"), "resources:\n- crontabs.yaml\nnamespace: prod\n")
	data, err := readFile(invalid)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(kdir, "crontabs.yaml"), string(data))
	k := bin.Run(t, "kubectl-crd", offline, "validate", "-k", kdir, "--crds", crdDirs[1], "--offline", "-o", "json")
	var kreport validate.Report
	if err := json.Unmarshal([]byte(k.Stdout), &kreport); err != nil || k.Code != 1 || kreport.Summary.Invalid != 5 || kreport.Results[0].Namespace != "prod" {
		t.Errorf("-k: exit %d, %v\n%s%s", k.Code, err, k.Stdout, k.Stderr)
	}

	// --offline: no cluster call even with a kubeconfig (the input's own
	// CRDs serve), and --old turns objects into updates.
	updates := filepath.Join(repoRoot, "test/testdata/updates")
	testCluster.ResetRequests()
	old := bin.Run(t, "kubectl-crd", nil, "validate", "--offline", "-f", filepath.Join(updates, "ledgers.crd.yaml"), "-f", filepath.Join(updates, "ledgers.new.yaml"), "--old", filepath.Join(updates, "ledgers.old.yaml"))
	if n := len(testCluster.Requests()); n != 0 {
		t.Errorf("--offline sent %d requests", n)
	}
	for _, line := range []string{
		"ledgers.new.yaml:7:3: spec.owner: Invalid value: owner is immutable once set",
		"ledgers.new.yaml:9:3: spec.balance: Forbidden: balance may only grow",
		`ledgers.new.yaml:10:3: spec.tier: Invalid value: "silver": gold is forever`,
		`ledgers.new.yaml:29:13: spec.tags[1]: Duplicate value: "a"`,
		"3 valid, 2 invalid, 0 skipped, 0 errors",
	} {
		if old.Code != 1 || !strings.Contains(old.Stdout, line) {
			t.Errorf("--old: exit %d, output lacks %q:\n%s%s", old.Code, line, old.Stdout, old.Stderr)
		}
	}

	// -o yaml: the valid objects as stored, the report on stderr.
	y := bin.Run(t, "kubectl-crd", offline, "validate", "-f", filepath.Join(repoRoot, "examples/objects/valid"), "--crds", crdDirs[1], "-o", "yaml")
	stored, err := manifest.Read("stdout", []byte(y.Stdout))
	if err != nil || len(stored) != 3 || y.Code != 0 || !strings.Contains(y.Stderr, "3 valid") || !strings.Contains(y.Stdout, "cronSpec: 5 0 * * *") {
		t.Errorf("-o yaml: exit %d, %d objects, %v\n%s%s", y.Code, len(stored), err, y.Stdout, y.Stderr)
	}
}

func writeFile(t *testing.T, name, text string) {
	t.Helper()
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestValidateWarnsOnceForDeprecatedKinds validates, online, many objects
// of two deprecated versions on every core: every object is valid and
// carries its version's deprecation warning, and (with -race, as CI runs
// this) no data race is reported.
func TestValidateWarnsOnceForDeprecatedKinds(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "---\napiVersion: alpha.example.com/v1beta1\nkind: Widget\nmetadata:\n  name: w-%d\n", i)
		fmt.Fprintf(&b, "---\napiVersion: beta.example.com/v1alpha1\nkind: Sprocket\nmetadata:\n  name: s-%d\n", i)
	}
	input := filepath.Join(t.TempDir(), "deprecated.yaml")
	writeFile(t, input, b.String())
	for range 4 {
		r := bin.Run(t, "kubectl-crd", nil, "validate", "-f", input)
		if r.Code != 0 || !strings.HasSuffix(r.Stdout, "400 valid, 0 invalid, 0 skipped, 0 errors\n") {
			t.Fatalf("exit %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
		}
		for _, w := range []string{"alpha.example.com/v1beta1 Widget is deprecated", "sprockets are going away"} {
			if n := strings.Count(r.Stdout, "warning: apiVersion: "+w); n != 200 {
				t.Errorf("%q warned %d times, want 200:\n%s", w, n, r.Stdout)
			}
		}
		if strings.Contains(r.Stderr, "DATA RACE") {
			t.Fatalf("data race:\n%s", r.Stderr)
		}
	}
}

// TestValidateChecksBuiltInKinds validates, online, kinds kube-apiserver
// serves itself, of named groups and of the core group, beside a custom
// resource: each is checked and valid; --skip-kinds skips the kinds it
// names, in each of its forms.
func TestValidateChecksBuiltInKinds(t *testing.T) {
	input := filepath.Join(t.TempDir(), "apps.yaml")
	writeFile(t, input, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
---
apiVersion: printing.example.com/v1
kind: Sample
metadata: {name: checked}
spec: {color: red}
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec: {defaultBackend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: reader}
rules: [{apiGroups: [""], resources: [pods], verbs: [get]}]
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: web}
spec: {minAvailable: 1, selector: {matchLabels: {app: web}}}
`)
	r := bin.Run(t, "kubectl-crd", nil, "validate", "-f", input)
	if r.Code != 0 || !strings.HasSuffix(r.Stdout, "7 valid, 0 invalid, 0 skipped, 0 errors\n") {
		t.Errorf("exit %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = bin.Run(t, "kubectl-crd", nil, "validate", "-f", input, "--skip-kinds", "Deployment.apps,v1/ConfigMap", "--skip-kinds", "rbac.authorization.k8s.io/v1/Role,Sample")
	for _, want := range []string{
		input + ":1: Deployment/web: skipped: skipped by --skip-kinds",
		input + ":10: ConfigMap/settings: skipped: skipped by --skip-kinds",
		input + ":14: Sample/checked: skipped: skipped by --skip-kinds",
		input + ":31: Role/reader: skipped: skipped by --skip-kinds",
		"3 valid, 0 invalid, 4 skipped, 0 errors",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("output lacks %q:\n%s%s", want, r.Stdout, r.Stderr)
		}
	}
	if r.Code != 0 {
		t.Errorf("exit %d:\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

// TestValidateMixedDirectory validates, offline, a directory as projects
// keep one: a CRD, its custom resources and built-in kinds, invalid as
// people get them wrong, and a kustomization of it all. -k gives one report
// with every object's verdict, each error at its file, line and column,
// and exit status 1; -f gives the same, and skips the kustomization
// itself.
func TestValidateMixedDirectory(t *testing.T) {
	dir := t.TempDir()
	crd, err := os.ReadFile(filepath.Join(repoRoot, "examples/crds/crontab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "crd.yaml"), string(crd))
	app := filepath.Join(dir, "app.yaml")
	writeFile(t, app, `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: "three"
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: other}
    spec:
      containers:
      - name: web
        image: nginx
---
apiVersion: v1
kind: Service
metadata:
  name: Web_Svc
spec:
  selector: {app: web}
  ports:
  - port: 99999
---
apiVersion: stable.example.com/v1
kind: CronTab
metadata: {name: nightly}
spec: {cronSpec: "0 3 * * *", image: busybox, replicas: 2}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: other}
    spec:
      containers:
      - name: api
        image: nginx
---
apiVersion: extensions/v1beta1
kind: Ingress
metadata: {name: old}
spec: {backend: {serviceName: web, servicePort: 80}}
`)
	writeFile(t, filepath.Join(dir, "kustomization.yaml"), "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [crd.yaml, app.yaml]\n")
	wantErrors := []string{
		app + `:6:3: spec.replicas: Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32`,
		app + `:20:3: metadata.name: Invalid value: "Web_Svc": a lowercase RFC 1123 label`,
		app + `:24:5: spec.ports[0].port: Invalid value: 99999: must be between 1 and 65535, inclusive`,
		app + `:40:7: spec.template.metadata.labels: Invalid value: {"app":"other"}: ` + "`selector` does not match template `labels`",
		app + `:47:1: kind: no matches for kind "Ingress" in version "extensions/v1beta1"`,
	}
	offline := []string{"KUBECONFIG="}
	r := bin.Run(t, "kubectl-crd", offline, "validate", "-f", dir, "--offline")
	for _, want := range append(wantErrors, dir+"/kustomization.yaml:1: Kustomization/: skipped: no CustomResourceDefinition for Kustomization.kustomize.config.k8s.io",
		"2 valid, 4 invalid, 1 skipped, 0 errors") {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("-f: output lacks %q:\n%s%s", want, r.Stdout, r.Stderr)
		}
	}
	if r.Code != 1 {
		t.Errorf("-f: exit %d, want 1", r.Code)
	}
	r = bin.Run(t, "kubectl-crd", offline, "validate", "-k", dir, "--offline", "-o", "json")
	var report validate.Report
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil {
		t.Fatalf("-k: exit %d: %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	var verdicts []string
	for _, res := range report.Results {
		verdicts = append(verdicts, res.Kind+"/"+res.Name+" "+string(res.Status))
	}
	// In kustomize's order of applying: CRDs first.
	want := []string{"CustomResourceDefinition/crontabs.stable.example.com valid", "Service/Web_Svc invalid", "Deployment/api invalid",
		"Deployment/web invalid", "Ingress/old invalid", "CronTab/nightly valid"}
	if !slices.Equal(verdicts, want) || r.Code != 1 {
		t.Errorf("-k: exit %d, verdicts %q, want %q", r.Code, verdicts, want)
	}
}
