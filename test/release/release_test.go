// Package release builds the release with "make dist" and checks the
// archives and the krew manifest: with krew's own tools where they are
// (krew is not on the module proxy), and by krew's rules as this package
// states them.
package release

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

const version = "v0.3.1-rc.1"

// plugin is krew's index.krew.googlecontainertools.github.com/v1alpha2
// Plugin, field for field, so that strict decoding rejects what krew
// would not know.
type plugin struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		Version          string     `json:"version"`
		ShortDescription string     `json:"shortDescription"`
		Description      string     `json:"description"`
		Caveats          string     `json:"caveats"`
		Homepage         string     `json:"homepage"`
		Platforms        []platform `json:"platforms"`
	} `json:"spec"`
}

type platform struct {
	URI      string `json:"uri"`
	Sha256   string `json:"sha256"`
	Selector struct {
		MatchLabels      map[string]string `json:"matchLabels"`
		MatchExpressions []any             `json:"matchExpressions"`
	} `json:"selector"`
	Files []struct {
		From string `json:"from"`
		To   string `json:"to"`
	} `json:"files"`
	Bin string `json:"bin"`
}

var shaRule = regexp.MustCompile(`^[a-f0-9]{64}$`)

// allPlatformsVar names the environment variable that makes TestDist
// build the six release archives (before a release); by default it builds
// the host's only, which keeps a contributor's go test ./... short.
const allPlatformsVar = "KUBECTL_CRD_RELEASE_ALL"

// released are the platforms krew installs, as the release builds them.
var released = []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64"}

func TestDist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds release binaries")
	}
	platforms := released
	if os.Getenv(allPlatformsVar) == "" {
		platforms = []string{runtime.GOOS + "/" + runtime.GOARCH}
		t.Logf("building the %s archive only (%s=1 builds all six)", platforms[0], allPlatformsVar)
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	// The extension as make vsix VERSION=... packages it: a zip whose
	// extension/package.json has the release's version (vsce itself is
	// run by CI's vscode phase).
	vsix := extension(t, strings.TrimPrefix(version, "v"))
	cmd := exec.Command("make", "dist", "VERSION="+version, "DIST="+dist, "PLATFORMS="+strings.Join(platforms, ","), "VSIX="+vsix)
	if _, err := exec.LookPath("make"); err != nil {
		t.Log("no make on PATH: running the command the Makefile's dist target runs")
		cmd = exec.Command("go", "run", "./hack/dist", "-version", version, "-out", dist, "-platforms", strings.Join(platforms, ","), "-vsix", vsix)
	}
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %v\n%s", cmd.Args, err, out)
	}

	raw, err := os.ReadFile(filepath.Join(dist, "crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var p plugin
	if err := yaml.UnmarshalStrict(raw, &p); err != nil {
		t.Fatalf("dist/crd.yaml is not a krew Plugin: %v\n%s", err, raw)
	}
	checkManifest(t, &p, platforms)
	sums := checksums(t, filepath.Join(dist, "checksums.txt"))
	if len(sums) != len(p.Spec.Platforms)+1 {
		t.Errorf("checksums.txt lists %d files, want the manifest's %d platforms and the extension", len(sums), len(p.Spec.Platforms))
	}
	attached := "kubectl-crd_" + version + ".vsix"
	if data, err := os.ReadFile(filepath.Join(dist, attached)); err != nil {
		t.Errorf("the extension is not attached: %v", err)
	} else if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != sums[attached] {
		t.Errorf("%s: sha256 %x, checksums.txt says %s", attached, sum, sums[attached])
	}

	for _, pl := range p.Spec.Platforms {
		goos, goarch := pl.Selector.MatchLabels["os"], pl.Selector.MatchLabels["arch"]
		u, err := url.Parse(pl.URI)
		if err != nil || u.Scheme != "https" {
			t.Errorf("%s/%s: uri %q is not an https URL", goos, goarch, pl.URI)
			continue
		}
		name := path.Base(u.Path)
		if !strings.Contains(pl.URI, "/"+version+"/") || !strings.Contains(name, "_"+version+"_"+goos+"_"+goarch+".") {
			t.Errorf("%s/%s: uri %q does not name this version and platform", goos, goarch, pl.URI)
		}
		data, err := os.ReadFile(filepath.Join(dist, name))
		if err != nil {
			t.Errorf("%s/%s: the archive the manifest names: %v", goos, goarch, err)
			continue
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != pl.Sha256 || got != sums[name] {
			t.Errorf("%s: sha256 %s, manifest says %s, checksums.txt %s", name, got, pl.Sha256, sums[name])
		}
		files := archiveFiles(t, name, data)
		for _, want := range []string{pl.Bin, "LICENSE"} {
			if _, ok := files[want]; !ok {
				t.Errorf("%s lacks %s (has %v)", name, want, keys(files))
			}
		}
		for _, f := range pl.Files {
			if _, ok := files[f.From]; !ok {
				t.Errorf("%s: files.from %q matches nothing in the archive", name, f.From)
			}
		}
		if goos == runtime.GOOS && goarch == runtime.GOARCH {
			runVersion(t, files[pl.Bin])
		}
	}

	t.Run("krew", func(t *testing.T) { checkWithKrew(t, root, dist, p.Spec.Platforms) })

	// The krew-release-bot template is the same template.
	a, _ := os.ReadFile(filepath.Join(root, "plugins/krew.yaml"))
	b, _ := os.ReadFile(filepath.Join(root, ".krew.yaml"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error(".krew.yaml differs from plugins/krew.yaml")
	}
}

// checkManifest checks what krew's own tools do not (validate-krew-manifest
// checks the structure, the selectors and each platform's install; see
// checkWithKrew): the plugin's name and version, what krew-index's review
// asks of a manifest (a one-line short description, a description,
// caveats, a homepage, the license in every archive), and that every
// platform built is in it.
func checkManifest(t *testing.T, p *plugin, platforms []string) {
	t.Helper()
	if p.Metadata.Name != "crd" || p.Spec.Version != version {
		t.Errorf("metadata.name %q, spec.version %q: want crd and %s", p.Metadata.Name, p.Spec.Version, version)
	}
	if s := p.Spec.ShortDescription; s == "" || strings.Contains(s, "\n") || len(s) > 80 {
		t.Errorf("shortDescription %q: must be one short line", s)
	}
	if p.Spec.Description == "" || p.Spec.Caveats == "" || !strings.HasPrefix(p.Spec.Homepage, "https://") {
		t.Error("description, caveats and an https homepage are required")
	}
	var seen []string
	for _, pl := range p.Spec.Platforms {
		key := pl.Selector.MatchLabels["os"] + "/" + pl.Selector.MatchLabels["arch"]
		seen = append(seen, key)
		var froms []string
		for _, f := range pl.Files {
			froms = append(froms, f.From)
		}
		if !slices.Contains(froms, "LICENSE") {
			t.Errorf("%s: files must extract LICENSE, got %q", key, froms)
		}
	}
	slices.Sort(seen)
	want := slices.Sorted(slices.Values(platforms))
	if !slices.Equal(seen, want) {
		t.Errorf("platforms %q, want %q", seen, want)
	}
}

func checksums(t *testing.T, name string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		sum, file, ok := strings.Cut(line, "  ")
		if !ok || !shaRule.MatchString(sum) {
			t.Errorf("checksums.txt: %q is not \"SHA256  FILE\"", line)
		}
		out[file] = sum
	}
	return out
}

// archiveFiles returns the regular files of a .tar.gz or .zip archive.
func archiveFiles(t *testing.T, name string, data []byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out[f.Name], _ = io.ReadAll(rc)
			rc.Close()
		}
		return out
	}
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if h.Typeflag == tar.TypeReg {
			if h.Name == "kubectl-crd" && h.Mode&0o111 == 0 {
				t.Errorf("%s: %s is not executable", name, h.Name)
			}
			out[h.Name], _ = io.ReadAll(tr)
		}
	}
}

// runVersion runs the binary taken from the archive: it must print the
// stamped version.
func runVersion(t *testing.T, binary []byte) {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "kubectl-crd")
	if err := os.WriteFile(exe, binary, 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(exe, "version", "-o", "json").Output()
	if err != nil {
		t.Fatalf("the released binary: version -o json: %v", err)
	}
	var info struct{ Version, GoVersion, Platform string }
	if err := json.Unmarshal(out, &info); err != nil || info.Version != version || info.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("the released binary says %s (%v), want version %s", out, err, version)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// extension is a .vsix (a zip) holding extension/package.json of version.
func extension(t *testing.T, version string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("extension/package.json")
	if err == nil {
		_, err = fmt.Fprintf(w, `{"name": "kubectl-crd", "version": %q}`, version)
	}
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "kubectl-crd.vsix")
	if err := os.WriteFile(name, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestDistRefusesAnotherExtension: an extension of another version than
// the release's is refused, before anything is built.
func TestDistRefusesAnotherExtension(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	dist := t.TempDir()
	cmd := exec.Command("go", "run", "./hack/dist", "-version", version, "-out", dist, "-vsix", extension(t, "0.1.0"))
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `the extension is version "0.1.0", the release "`+strings.TrimPrefix(version, "v")+`"`) {
		t.Errorf("%v: %v\n%s", cmd.Args, err, out)
	}
	if entries, _ := os.ReadDir(dist); len(entries) > 0 {
		t.Errorf("refused, yet %d files written", len(entries))
	}
}
