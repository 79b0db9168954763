package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/flux"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/kubectl-crd/kubectl-crd/test/gitrepo"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

// fleetRepo is the flux package's fleet repository, as a git work tree
// of its own.
func fleetRepo(t *testing.T) string {
	return gitrepo.Copy(t, filepath.Join(repoRoot, "pkg/flux/testdata/repo"))
}

// TestFluxRenderedMatchesServer renders two clusters of a fleet
// repository (flux:clusters/prod and flux:clusters/staging: substitutions
// from ConfigMaps, defaults, escapes, a target namespace, patches, a
// nested Kustomization, HelmReleases) and holds each rendered object's
// result of validate -o json, online, to kube-apiserver's answer to a
// dry-run create of the same object in the namespace it lands in. The
// staging cluster's substitutions make objects the server refuses: a
// string where an integer goes, a value past a CRD's maximum, a value
// outside an enum; a HelmRelease's values make a custom resource of the
// chart's own CRD that the server refuses; others break the chart's schema,
// which helm itself refuses (no object: an error at the values, in
// spec.values or in a valuesFrom ConfigMap).
func TestFluxRenderedMatchesServer(t *testing.T) {
	helm := bin.Helm(t)
	dir := fleetRepo(t)
	cs, err := kubernetes.NewForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	for _, ns := range []string{"apps", "web", "monitoring", "flux-system"} {
		_, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			t.Fatal(err)
		}
	}
	// A substituteFrom ConfigMap the repository does not hold: online, it
	// is read from the cluster, as Flux reads it.
	_, err = cs.CoreV1().ConfigMaps("flux-system").Create(context.Background(), &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "cluster-only-vars"}, Data: map[string]string{"DATABASE": "postgres"}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	fromCluster := func(ctx context.Context, kind, namespace, name string) (map[string]any, error) {
		cm, err := cs.CoreV1().ConfigMaps(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil || kind != "ConfigMap" {
			return nil, apierrors.NewNotFound(corev1.Resource("configmaps"), name)
		}
		return runtime.DefaultUnstructuredConverter.ToUnstructured(cm)
	}
	// The CRD the chart installs, for the server to answer its objects.
	if _, err := testCluster.LoadCRDs(context.Background(), filepath.Join(dir, "charts/web/crds")); err != nil {
		t.Fatal(err)
	}
	paths := []string{"clusters/prod", "clusters/staging"}
	args := []string{"validate", "-o", "json", "--helm", helm}
	var texts []manifest.Text
	for _, p := range paths {
		args = append(args, "-f", "flux:"+p)
		more, err := flux.Render(context.Background(), p, flux.Options{Dir: dir, Helm: helm, Cluster: fromCluster})
		if err != nil {
			t.Fatal(err)
		}
		texts = append(texts, more...)
	}
	r := bin.RunIn(t, dir, "kubectl-crd", nil, args...)
	var report validate.Report
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil {
		t.Fatalf("exit %d: %v\n%s%s", r.Code, err, r.Stdout, r.Stderr)
	}
	if r.Code != 2 {
		t.Errorf("exit %d, want 2 (objects the server refuses)", r.Code)
	}
	if len(report.Results) != len(texts) {
		t.Fatalf("%d results of %d rendered texts\n%s", len(report.Results), len(texts), r.Stdout)
	}
	server, err := harness.NewDryRunner(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]int{}
	for i, res := range report.Results {
		text := texts[i]
		if res.File != text.Name || res.Source != text.Rendered.Via {
			t.Errorf("result %d: %s from %q, want %s from %q", i, res.File, res.Source, text.Name, text.Rendered.Via)
		}
		verdicts[string(res.Status)]++
		if res.Status == validate.Skipped {
			// Flux's own kinds: no CRD of theirs is given here.
			if !strings.Contains(res.APIVersion, "toolkit.fluxcd.io") {
				t.Errorf("%s/%s skipped: %s", res.Kind, res.Name, res.Reason)
			}
			continue
		}
		if text.Rendered.Err != "" {
			if res.Status != validate.Errored || res.Line != text.Rendered.Line {
				t.Errorf("%s:%d: %s, want an error at line %d: %s", res.File, res.Line, res.Status, text.Rendered.Line, text.Rendered.Err)
			}
			continue
		}
		docs, err := manifest.Read(text.Name, text.Data)
		if err != nil || len(docs) != 1 {
			t.Fatalf("%s: %v", text.Name, err)
		}
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(docs[0].JSON); err != nil {
			t.Fatal(err)
		}
		if obj.GetNamespace() == "" && text.Rendered.Namespace != "" && obj.GetKind() != "Namespace" {
			// Where helm install -n puts what its templates leave.
			obj.SetNamespace(text.Rendered.Namespace)
		}
		js, err := obj.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprintf("%s/%s/%s", res.Source, res.Kind, res.Name), func(t *testing.T) {
			got := harness.Causes(res)
			want := harness.ServerCauses(server.Run(t, js, res.Operation))
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s %s/%s: kubectl crd validate %q\nserver %q", res.Operation, res.Kind, res.Name, got, want)
			}
		})
	}
	for _, want := range []struct {
		file, field string
		line        int
	}{
		{"apps/base/deployment.yaml", "spec.replicas", 8},
		{"apps/staging/crontab.yaml", "spec.replicas", 7},
		{"apps/staging/job.yaml", "spec.template.spec.restartPolicy", 8},
		// A template's object: in the template's file, no line.
		{"charts/web/templates/widget.yaml", "spec.size", 0},
	} {
		if !hasProblem(report, want.file, want.field, want.line) {
			t.Errorf("no problem of %s at %s:%d", want.field, want.file, want.line)
		}
	}
	for _, res := range report.Results {
		for _, w := range res.Warnings {
			if w.Type == "SubstitutionUnset" && strings.Contains(w.Message, "${DATABASE}") {
				t.Errorf("%s/%s: %s: online, the cluster's ConfigMap defines it", res.Kind, res.Name, w.Message)
			}
		}
	}
	offline := bin.RunIn(t, dir, "kubectl-crd", nil, "validate", "--offline", "--helm", helm, "-f", "flux:clusters/staging")
	if want := "job.yaml:14:22: warning: ${DATABASE} is substituted with nothing"; !strings.Contains(offline.Stdout, want) {
		t.Errorf("offline, the cluster's ConfigMap is not read: no %q in\n%s", want, offline.Stdout)
	}
	if verdicts["valid"] == 0 || verdicts["invalid"] < 4 || verdicts["error"] != 2 {
		t.Errorf("verdicts %v: want valid objects, the three the staging substitutions break and the Widget its values do, and the two staging values helm refuses", verdicts)
	}
	t.Logf("%d rendered objects: %v", len(report.Results), verdicts)

	// flux: is a path as any other: here the CRDs of --crds.
	r = bin.RunIn(t, dir, "kubectl-crd", nil, "explain", "--helm", helm, "--crds", "flux:clusters/prod", "widget.spec.size")
	if r.Code != 0 || !strings.Contains(r.Stdout, "FIELD: size <integer>") {
		t.Errorf("explain --crds flux:clusters/prod: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}

func hasProblem(report validate.Report, file, field string, line int) bool {
	for _, res := range report.Results {
		for _, p := range res.Errors {
			if filepath.ToSlash(res.File) == file && p.Field == field && p.Line == line {
				return true
			}
		}
	}
	return false
}

// TestFluxBadInput: what cannot be rendered is an error at its
// Kustomization's or HelmRelease's line, the rest still checked, exit 2
// (an input that cannot be read); a PATH that does not exist, or a
// --flux-source that cannot be read, is the job not done: exit 2 too.
func TestFluxBadInput(t *testing.T) {
	dir := fleetRepo(t)
	r := bin.RunIn(t, dir, "kubectl-crd", nil, "validate", "--offline", "--helm", filepath.Join(dir, "no-helm"), "-f", "flux:clusters/broken")
	for _, want := range []string{
		filepath.Join("clusters", "broken", "apps.yaml") + ":8:3: error: Kustomization flux-system/missing-path: spec.path: kustomization path not found",
		filepath.Join("clusters", "broken", "apps.yaml") + ":25:5: error: Kustomization flux-system/missing-vars: spec.postBuild.substituteFrom: substitute from 'ConfigMap/not-in-the-repository' error",
		filepath.Join("clusters", "broken", "apps.yaml") + ":41:1: error: HelmRelease flux-system/broken:",
	} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("no %q in\n%s", want, r.Stdout)
		}
	}
	if !strings.Contains(r.Stderr, "OCIRepository/flux-system/manifests is not local: not rendered") || r.Code != 2 {
		t.Errorf("exit %d, stderr %s", r.Code, r.Stderr)
	}
	r = bin.RunIn(t, dir, "kubectl-crd", nil, "validate", "--offline", "-f", "flux:clusters/nowhere")
	if r.Code != 2 || !strings.Contains(r.Stderr, "flux:clusters/nowhere") || strings.Contains(r.Stderr, "panic") {
		t.Errorf("exit %d, stderr %s", r.Code, r.Stderr)
	}
	r = bin.RunIn(t, dir, "kubectl-crd", nil, "validate", "--offline", "--flux-source", "GitRepository/infra=x", "-f", "flux:clusters/prod")
	if r.Code != 2 || !strings.Contains(r.Stderr, "KIND/NAMESPACE/NAME=DIR") {
		t.Errorf("exit %d, stderr %s", r.Code, r.Stderr)
	}
}
