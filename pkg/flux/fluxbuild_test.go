package flux

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// fluxVersion is the flux CLI the peer test builds.
const fluxVersion = "v2.9.5"

// TestFluxBuildAgrees holds what flux:clusters/prod renders of each
// Kustomization to what Flux's own CLI renders of it: flux build
// kustomization flux-system --recursive --dry-run --local-sources
// GitRepository/flux-system/flux-system=. over the same repository.
// Without a cluster, flux build substitutes no substituteFrom (its
// dry-run reads no ConfigMap); so its copy of the repository has each
// Kustomization's substituteFrom written into postBuild.substitute, in
// Flux's order of precedence (substitute over substituteFrom).
// HelmReleases, which flux build does not render, are left out.
//
// It runs with KUBECTL_CRD_PEERS=1 (before a release, see
// docs/releases.md): building the flux CLI takes minutes of a cold run.
func TestFluxBuildAgrees(t *testing.T) {
	if os.Getenv("KUBECTL_CRD_PEERS") != "1" {
		t.Skip("builds the flux CLI from the module proxy: set KUBECTL_CRD_PEERS=1")
	}
	bin := t.TempDir()
	install := exec.Command("go", "install", "github.com/fluxcd/flux2/v2/cmd/flux@"+fluxVersion)
	install.Env = append(os.Environ(), "GOBIN="+bin, "GOFLAGS=", "CGO_ENABLED=0")
	if out, err := install.CombinedOutput(); err != nil {
		t.Fatalf("building flux: %v\n%s", err, out)
	}
	dir := testRepo(t)
	objs, _, _ := render(t, dir, "clusters/prod", Options{Helm: filepath.Join(dir, "no-helm")})

	peer := testRepo(t)
	inlineSubstituteFrom(t, peer, objs)
	cmd := exec.Command(filepath.Join(bin, "flux"), "build", "kustomization", "flux-system", "--namespace", "flux-system",
		"--path", "clusters/prod", "--kustomization-file", "clusters/prod/flux-system/gotk-sync.yaml",
		"--recursive", "--dry-run", "--local-sources", "GitRepository/flux-system/flux-system=.")
	cmd.Dir = peer
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("flux build: %v\n%s", err, stderr.String())
	}
	theirs := map[string]map[string]any{}
	for _, doc := range strings.Split(string(out), "\n---\n") {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(doc), &m); err != nil || m == nil {
			continue
		}
		u := unstructured.Unstructured{Object: m}
		theirs[u.GetKind()+"/"+u.GetNamespace()+"/"+u.GetName()] = m
	}
	compared := 0
	for key, ours := range objs {
		if !strings.HasPrefix(ours.text.Rendered.Via, "Kustomization ") || strings.HasPrefix(key, "Kustomization/") {
			continue // a HelmRelease's, or a Kustomization whose copy differs
		}
		want, ok := theirs[key]
		if !ok {
			t.Errorf("%s: flux build renders no such object", key)
			continue
		}
		if !reflect.DeepEqual(ours.obj.Object, want) {
			a, _ := json.MarshalIndent(ours.obj.Object, "", "  ")
			b, _ := json.MarshalIndent(want, "", "  ")
			t.Errorf("%s:\nkubectl crd %s\nflux build %s", key, a, b)
		}
		compared++
	}
	for key := range theirs {
		if _, ok := objs[key]; !ok {
			t.Errorf("%s: flux build renders it, kubectl crd does not", key)
		}
	}
	if compared < 8 {
		t.Errorf("%d objects compared: the test would prove little", compared)
	}
	t.Logf("flux %s: %d objects as flux build renders them", fluxVersion, compared)
}

// inlineSubstituteFrom writes, in the repository at dir, each
// Kustomization file's substituteFrom ConfigMaps (from the objects
// rendered) into its postBuild.substitute.
func inlineSubstituteFrom(t *testing.T, dir string, objs map[string]result) {
	t.Helper()
	for key, r := range objs {
		if !strings.HasPrefix(key, "Kustomization/") {
			continue
		}
		refs, _, _ := unstructured.NestedSlice(r.obj.Object, "spec", "postBuild", "substituteFrom")
		if len(refs) == 0 {
			continue
		}
		vars := map[string]any{}
		for _, ref := range refs {
			ref := ref.(map[string]any)
			if cm, ok := objs[ref["kind"].(string)+"/"+r.obj.GetNamespace()+"/"+ref["name"].(string)]; ok {
				data, _, _ := unstructured.NestedStringMap(cm.obj.Object, "data")
				for k, v := range data {
					vars[k] = v
				}
			}
		}
		inline, _, _ := unstructured.NestedStringMap(r.obj.Object, "spec", "postBuild", "substitute")
		for k, v := range inline {
			vars[k] = v
		}
		file := filepath.Join(dir, r.text.Name)
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var docs []string
		for _, doc := range strings.Split(string(data), "\n---\n") {
			var m map[string]any
			if err := yaml.Unmarshal([]byte(doc), &m); err == nil && m != nil {
				u := unstructured.Unstructured{Object: m}
				if u.GetKind() == "Kustomization" && u.GetName() == r.obj.GetName() {
					_ = unstructured.SetNestedField(m, vars, "spec", "postBuild", "substitute")
					unstructured.RemoveNestedField(m, "spec", "postBuild", "substituteFrom")
					b, err := yaml.Marshal(m)
					if err != nil {
						t.Fatal(err)
					}
					doc = string(b)
				}
			}
			docs = append(docs, doc)
		}
		if err := os.WriteFile(file, []byte(strings.Join(docs, "\n---\n")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
