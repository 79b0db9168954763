package flux

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/test/gitrepo"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// testRepo is the fleet repository of testdata/repo, as a git work tree
// of its own.
func testRepo(t *testing.T) string { return gitrepo.Copy(t, "testdata/repo") }

// helmForTests is a helm binary (KUBECTL_CRD_HELM, else helm on PATH), or
// "" when there is none.
func helmForTests() string {
	if h := os.Getenv("KUBECTL_CRD_HELM"); h != "" {
		return h
	}
	h, _ := exec.LookPath("helm")
	return h
}

type result struct {
	text manifest.Text
	obj  *unstructured.Unstructured
}

func render(t *testing.T, dir, path string, o Options) (map[string]result, []manifest.Text, []string) {
	t.Helper()
	var warnings []string
	o.Dir, o.Warn = dir, func(s string) { warnings = append(warnings, s) }
	texts, err := Render(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	byKey := map[string]result{}
	for _, tx := range texts {
		if tx.Rendered == nil {
			t.Fatalf("%s: not marked as rendered", tx.Name)
		}
		if tx.Rendered.Err != "" {
			continue
		}
		var m map[string]any
		if err := yaml.Unmarshal(tx.Data, &m); err != nil {
			t.Fatalf("%s: %v", tx.Name, err)
		}
		u := &unstructured.Unstructured{Object: m}
		key := u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
		if _, ok := byKey[key]; ok {
			t.Errorf("%s rendered twice", key)
		}
		byKey[key] = result{tx, u}
	}
	return byKey, texts, warnings
}

func get(t *testing.T, r result, field ...string) any {
	t.Helper()
	v, ok, err := unstructured.NestedFieldNoCopy(r.obj.Object, field...)
	if err != nil || !ok {
		t.Fatalf("%s: no %v", r.obj.GetName(), field)
	}
	return v
}

func TestRenderCluster(t *testing.T) {
	dir := testRepo(t)
	objs, _, warnings := render(t, dir, "clusters/prod", Options{Helm: helmForTests()})

	d, ok := objs["Deployment/apps/podinfo"]
	if !ok {
		t.Fatalf("no Deployment apps/podinfo among %v", keys(objs))
	}
	container := get(t, d, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
	env := map[string]any{}
	for _, e := range container["env"].([]any) {
		env[e.(map[string]any)["name"].(string)] = e.(map[string]any)["value"]
	}
	for what, pair := range map[string][2]any{
		"substituteFrom's value, typed as YAML reads it": {get(t, d, "spec", "replicas"), float64(3)},
		"substitute's value in a name":                   {d.obj.GetName(), "podinfo"},
		"a default":                                      {container["image"], "ghcr.io/example/podinfo:6.0.0"},
		"a ConfigMap's value":                            {env["CLUSTER"], "prod"},
		"a variable defined nowhere (YAML's null)":       {env["REGION"], nil},
		"an escape":                                      {env["LITERAL"], "${NOT_A_VAR}"},
		"a ConfigMap rendered after it (put off)":        {env["PLATFORM"], "kubernetes"},
		"the overlay's patch":                            {get(t, d, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)["resources"].(map[string]any)["limits"].(map[string]any)["memory"], "256Mi"},
		"commonMetadata":                                 {d.obj.GetLabels()["team"], "web"},
		"Flux's name label":                              {d.obj.GetLabels()["kustomize.toolkit.fluxcd.io/name"], "apps"},
		"Flux's namespace label":                         {d.obj.GetLabels()["kustomize.toolkit.fluxcd.io/namespace"], "flux-system"},
		"the file it came from":                          {d.text.Name, filepath.Join("apps", "base", "deployment.yaml")},
		"its line":                                       {d.text.Rendered.Line, 1},
		"what rendered it":                               {d.text.Rendered.Via, "Kustomization flux-system/apps (" + filepath.Join("clusters", "prod", "apps.yaml") + ":1)"},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s: %#v, want %#v", what, pair[0], pair[1])
		}
	}
	if _, ok := d.obj.GetAnnotations()[originAnnotation]; ok {
		t.Errorf("the origin annotation, asked for by kubectl crd alone, is left on the object")
	}
	if w := d.text.Rendered.Warnings; len(w) != 1 || w[0].Line != 24 || !strings.Contains(w[0].Msg, "${REGION}") {
		t.Errorf("warnings %v, want one of ${REGION} at line 24", w)
	}
	doc := manifest.Document{Line: d.text.Rendered.Line, Node: d.text.Rendered.Node}
	if line, _ := doc.Position("spec.replicas"); line != 8 {
		t.Errorf("spec.replicas placed at line %d of the file, want 8", line)
	}

	s := objs["Service/apps/podinfo"]
	if got := s.obj.GetAnnotations()["note"]; got != "keeps ${APP} as written" {
		t.Errorf("a Service that disables substitution: note %q", got)
	}
	if cm, ok := objs["ConfigMap/monitoring/infra-settings-a"]; !ok {
		t.Errorf("the nested Kustomization's ConfigMap, prefixed and suffixed: not among %v", keys(objs))
	} else {
		if level := get(t, cm, "data", "level"); level != "info" {
			t.Errorf("substituteStrategy Always, with no variable: level %q, want the default", level)
		}
		if tier := cm.obj.GetLabels()["tier"]; tier != "infra" {
			t.Errorf("the component's label: %q", tier)
		}
	}
	if secret, ok := objs["Secret/monitoring/db"]; !ok {
		t.Errorf("the SOPS-encrypted Secret of a Kustomization that decrypts: not among %v", keys(objs))
	} else if _, hasSOPS := secret.obj.Object["sops"]; hasSOPS || get(t, secret, "stringData", "password") != "**SOPS**" {
		t.Errorf("the encrypted Secret is not checked as decrypted, its values masked: %v", secret.obj.Object)
	}
	if pod, ok := objs["Pod/monitoring/infra-exporter-a"]; !ok {
		t.Errorf("the nested Kustomization's Pod: not among %v", keys(objs))
	} else if image := get(t, pod, "spec", "containers").([]any)[0].(map[string]any)["image"]; image != "ghcr.io/example/exporter:2.0" {
		t.Errorf("images: %v", image)
	}
	for _, k := range []string{"Kustomization/flux-system/flux-system", "GitRepository/flux-system/flux-system", "ConfigMap/flux-system/cluster-vars", "Kustomization/flux-system/controllers", "Namespace//monitoring"} {
		if _, ok := objs[k]; !ok {
			t.Errorf("%s: not rendered (%v)", k, keys(objs))
		}
	}
	if len(warnings) != 0 {
		t.Errorf("warnings %q", warnings)
	}
	if helmForTests() == "" {
		t.Log("no helm: the HelmRelease is not rendered")
		return
	}
	// Helm's templates name no namespace: the release's is where they go.
	web := objs["Deployment//web-web"]
	if web.obj == nil {
		t.Fatalf("the HelmRelease's Deployment web-web: not among %v", keys(objs))
	}
	for what, pair := range map[string][2]any{
		"valuesFrom's document":     {get(t, web, "spec", "replicas"), float64(2)},
		"valuesFrom's targetPath":   {get(t, web, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)["image"], "ghcr.io/example/web:1.2.3"},
		"spec.values over the rest": {get(t, objs["Service//web-web"], "spec", "type"), "ClusterIP"},
		"helm-controller's label":   {web.obj.GetLabels()["helm.toolkit.fluxcd.io/name"], "web"},
		"the template's file":       {web.text.Name, filepath.Join("charts", "web", "templates", "deployment.yaml")},
		"the release's namespace":   {web.text.Rendered.Namespace, "web"},
	} {
		if pair[0] != pair[1] {
			t.Errorf("%s: %#v, want %#v", what, pair[0], pair[1])
		}
	}
}

func keys(m map[string]result) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestRenderFailures: what cannot be rendered is a text that fails at its
// Kustomization's or HelmRelease's line, and the rest is rendered.
func TestRenderFailures(t *testing.T) {
	dir := testRepo(t)
	_, texts, warnings := render(t, dir, "clusters/broken", Options{Helm: filepath.Join(dir, "no-helm-here")})
	want := map[string]int{
		"Kustomization flux-system/missing-path: spec.path: kustomization path not found":                                                8,
		"Kustomization flux-system/missing-vars: spec.postBuild.substituteFrom: substitute from 'ConfigMap/not-in-the-repository' error": 25,
		"HelmRelease flux-system/broken: ": 41,
		"Kustomization flux-system/secrets-without-decryption: secret 'monitoring/db' is SOPS encrypted, configuring decryption is required": 55,
	}
	for _, tx := range texts {
		if tx.Rendered.Err == "" {
			continue
		}
		for prefix, line := range want {
			if strings.HasPrefix(tx.Rendered.Err, prefix) {
				if tx.Rendered.Line != line {
					t.Errorf("%q at line %d, want %d", tx.Rendered.Err, tx.Rendered.Line, line)
				}
				delete(want, prefix)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("not failed: %v", want)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "OCIRepository/flux-system/manifests is not local") {
		t.Errorf("warnings %q, want one of the OCIRepository", warnings)
	}
}

func TestParseSource(t *testing.T) {
	key, dir, err := ParseSource("GitRepository/flux-system/infra=../infra")
	if err != nil || key != "GitRepository/flux-system/infra" || dir != "../infra" {
		t.Errorf("%q %q %v", key, dir, err)
	}
	for _, bad := range []string{"GitRepository/infra=../infra", "GitRepository/flux-system/infra", "GitRepository/flux-system/infra=", "//=x"} {
		if _, _, err := ParseSource(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestRenderValuesRefused: values a chart's schema refuses are an error
// where they are written: at spec.values, or at the valuesFrom
// ConfigMap's key, in another file.
func TestRenderValuesRefused(t *testing.T) {
	helm := helmForTests()
	if helm == "" {
		t.Skip("no helm (KUBECTL_CRD_HELM, or on PATH); test/e2e builds one")
	}
	dir := testRepo(t)
	_, texts, _ := render(t, dir, "clusters/staging", Options{Helm: helm})
	want := map[string]string{
		filepath.Join("clusters", "staging", "web.yaml") + ":16":       "HelmRelease flux-system/web: spec.values.replicaCount: values don't meet the specifications of the schema",
		filepath.Join("clusters", "staging", "web-values.yaml") + ":7": "HelmRelease flux-system/web-from-config: spec.valuesFrom[0] (ConfigMap web-values, key values.yaml): values don't meet",
	}
	for _, tx := range texts {
		if tx.Rendered.Err == "" {
			continue
		}
		at := fmt.Sprintf("%s:%d", tx.Name, tx.Rendered.Line)
		if w, ok := want[at]; !ok || !strings.HasPrefix(tx.Rendered.Err, w) {
			t.Errorf("%s: %s", at, tx.Rendered.Err)
		}
		delete(want, at)
	}
	if len(want) > 0 {
		t.Errorf("not refused: %v", want)
	}
}

// TestFluxSourceMapping: --flux-source names a source's directory (here
// relative to the current directory, outside the fleet's work tree), and
// what it leads to is rendered instead of said to be skipped.
func TestFluxSourceMapping(t *testing.T) {
	dir := testRepo(t)
	cwd := t.TempDir()
	rel, err := filepath.Rel(cwd, filepath.Join(dir, "infrastructure", "controllers"))
	if err != nil {
		t.Fatal(err)
	}
	objs, _, warnings := render(t, cwd, filepath.Join(dir, "clusters", "broken"), Options{
		Helm: filepath.Join(dir, "no-helm"), Sources: map[string]string{"OCIRepository/flux-system/manifests": rel}})
	cm, ok := objs["ConfigMap/monitoring/settings"]
	if !ok || cm.text.Rendered.Via != "Kustomization flux-system/from-a-bucket ("+filepath.Join(dir, "clusters", "broken", "apps.yaml")+":29)" {
		t.Errorf("the OCIRepository's ConfigMap: %v (%v)", cm.text.Rendered, keys(objs))
	}
	for _, w := range warnings {
		if strings.Contains(w, "OCIRepository") {
			t.Errorf("warned: %s", w)
		}
	}
}

// TestHelmRunsInOrder: helm runs beside what follows its HelmRelease,
// and its objects still take its place in the order, whichever helm
// ends first. The helm here is a script that prints one ConfigMap named
// after the release, the first release slowest.
func TestHelmRunsInOrder(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"helm":                "#!/bin/sh\n[ \"$2\" = slow ] && sleep 0.5\nprintf -- '---\\n# Source: c/templates/cm.yaml\\napiVersion: v1\\nkind: ConfigMap\\nmetadata:\\n  name: %s\\n' \"$2\"\n",
		"charts/c/Chart.yaml": "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"apps/cm.yaml":        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: between\n  namespace: default\n",
		"cluster/releases.yaml": `apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: slow, namespace: default}
spec:
  chart: {spec: {chart: ./charts/c, sourceRef: {kind: GitRepository, name: fleet}}}
---
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
metadata: {name: apps, namespace: default}
spec:
  path: ./apps
  sourceRef: {kind: GitRepository, name: fleet}
---
apiVersion: helm.toolkit.fluxcd.io/v2
kind: HelmRelease
metadata: {name: fast, namespace: default}
spec:
  chart: {spec: {chart: ./charts/c, sourceRef: {kind: GitRepository, name: fleet}}}
`,
	}
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	_, texts, _ := render(t, dir, "cluster", Options{Helm: filepath.Join(dir, "helm")})
	var got []string
	for _, tx := range texts {
		if tx.Rendered.Err != "" {
			t.Fatalf("%s: %s", tx.Name, tx.Rendered.Err)
		}
		var m struct {
			Kind     string
			Metadata struct{ Name string }
		}
		if err := yaml.Unmarshal(tx.Data, &m); err != nil {
			t.Fatal(err)
		}
		got = append(got, m.Kind+"/"+m.Metadata.Name)
	}
	want := []string{"HelmRelease/slow", "Kustomization/apps", "HelmRelease/fast", "ConfigMap/slow", "ConfigMap/between", "ConfigMap/fast"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("order %v, want %v", got, want)
	}
}
