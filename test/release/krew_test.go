package release

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// krewTools is the directory of krew and validate-krew-manifest (built
// from kubernetes-sigs/krew v0.5.0): KUBECTL_CRD_KREW_TOOLS, or
// shared/tools/krew beside the repository.
func krewTools(t *testing.T, root string) string {
	dir := os.Getenv("KUBECTL_CRD_KREW_TOOLS")
	if dir == "" {
		dir = filepath.Join(root, "..", "shared", "tools", "krew")
	}
	for _, tool := range []string{"krew", "validate-krew-manifest"} {
		if _, err := os.Stat(filepath.Join(dir, tool)); err != nil {
			t.Skipf("no %s in %s (set KUBECTL_CRD_KREW_TOOLS): the release is not checked with krew's own tools", tool, dir)
		}
	}
	return dir
}

// checkWithKrew checks the release with krew itself: validate-krew-manifest
// on the manifest as released, then on a copy whose archives are served
// from this machine (it installs every platform), kubectl krew install from
// the manifest and this platform's archive, and from the index repository
// make dist lays out; after each install, kubectl runs kubectl crd as a
// plugin, which must print the release's version.
func checkWithKrew(t *testing.T, root, dist string, platforms []platform) {
	tools := krewTools(t, root)
	if runtime.GOOS != "linux" || runtime.GOARCH != "amd64" {
		t.Skipf("the krew tools are built for linux/amd64, not %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	manifest := filepath.Join(dist, "crd.yaml")

	// kubectl from k8s.io/kubectl, and krew as its plugin kubectl-krew.
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "kubectl"), "./test/kubectl")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building kubectl: %v\n%s", err, out)
	}
	if err := os.Symlink(filepath.Join(tools, "krew"), filepath.Join(bin, "kubectl-krew")); err != nil {
		t.Fatal(err)
	}
	newEnv := func() (env []string, krewRoot string) {
		home, krewRoot := t.TempDir(), t.TempDir()
		return []string{
			"HOME=" + home, "KREW_ROOT=" + krewRoot, "KREW_NO_UPGRADE_CHECK=1", "KUBECONFIG=" + filepath.Join(home, "none"),
			"PATH=" + strings.Join([]string{filepath.Join(krewRoot, "bin"), bin, "/usr/bin", "/bin"}, string(os.PathListSeparator)),
		}, krewRoot
	}
	run := func(env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out.String())
		}
		return out.String()
	}
	pluginVersion := func(env []string) {
		t.Helper()
		var info struct{ Version string }
		out := run(env, filepath.Join(bin, "kubectl"), "crd", "version", "-o", "json")
		if err := json.Unmarshal([]byte(out), &info); err != nil || info.Version != version {
			t.Errorf("kubectl crd version, as krew installed it: %q (%v), want version %s", out, err, version)
		}
	}

	// The manifest as released: structure, platforms, selectors.
	env, _ := newEnv()
	run(env, filepath.Join(tools, "validate-krew-manifest"), "-manifest", manifest, "-skip-install")

	// The same manifest with its archives served from here: krew installs
	// each platform (KREW_OS and KREW_ARCH) and finds its binary.
	server := httptest.NewServer(http.FileServer(http.Dir(dist)))
	defer server.Close()
	served := filepath.Join(t.TempDir(), "crd.yaml")
	writeServed(t, manifest, served, server.URL, len(platforms))
	run(env, filepath.Join(tools, "validate-krew-manifest"), "-manifest", served)

	// kubectl krew install --manifest --archive, as docs/install.md says for a
	// downloaded release.
	archive := filepath.Join(dist, "kubectl-crd_"+version+"_linux_amd64.tar.gz")
	env, krewRoot := newEnv()
	run(env, filepath.Join(bin, "kubectl"), "krew", "install", "--manifest="+manifest, "--archive="+archive)
	if _, err := os.Stat(filepath.Join(krewRoot, "bin", "kubectl-crd")); err != nil {
		t.Errorf("krew installed no kubectl-crd: %v", err)
	}
	pluginVersion(env)

	// The project's own index: the repository make dist lays out, added
	// with kubectl krew index add, installed from as NAME/crd.
	index := t.TempDir()
	writeServed(t, filepath.Join(dist, "index", "plugins", "crd.yaml"), filepath.Join(index, "plugins", "crd.yaml"), server.URL, len(platforms))
	gitEnv := append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=release", "GIT_AUTHOR_EMAIL=release@example.com", "GIT_COMMITTER_NAME=release", "GIT_COMMITTER_EMAIL=release@example.com")
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}, {"commit", "-q", "-m", "kubectl-crd " + version}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = index, gitEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	env, _ = newEnv()
	run(env, filepath.Join(bin, "kubectl"), "krew", "index", "add", "kubectl-crd", index)
	run(env, filepath.Join(bin, "kubectl"), "krew", "install", "kubectl-crd/crd")
	if out := run(env, filepath.Join(bin, "kubectl"), "krew", "list"); !strings.Contains(out, "kubectl-crd/crd") {
		t.Errorf("kubectl krew list does not list kubectl-crd/crd:\n%s", out)
	}
	pluginVersion(env)
}

// writeServed copies a released manifest to dst with its download URLs
// pointing at base, where the test serves the archives; the sha256 of each
// stays, so krew still checks the archive it downloads.
func writeServed(t *testing.T, src, dst, base string, platforms int) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	released := "https://github.com/kubectl-crd/kubectl-crd/releases/download/" + version + "/"
	if n := bytes.Count(data, []byte(released)); n != platforms {
		t.Fatalf("%s: %d download URLs under %s, want one per platform (%d)", src, n, released, platforms)
	}
	data = bytes.ReplaceAll(data, []byte(released), []byte(base+"/"))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
