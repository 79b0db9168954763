// Command dist builds the release: a static kubectl-crd for each platform
// krew installs, packed with LICENSE (and the completion script) into
// dist/kubectl-crd_VERSION_OS_ARCH.tar.gz (.zip for Windows), the archives'
// dist/checksums.txt, and the krew manifest dist/crd.yaml rendered from
// plugins/krew.yaml, also at dist/index/plugins/crd.yaml: the layout of a
// krew index repository ("kubectl krew index add NAME URL"), for the
// project's own index. With -vsix, the VS Code extension packaged for the
// same version is attached beside the archives (kubectl-crd_VERSION.vsix,
// in checksums.txt). Run it through "make dist VERSION=vX.Y.Z", or "make
// release VERSION=vX.Y.Z" for the extension too.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/template"
	"time"

	"sigs.k8s.io/yaml"
)

// Platforms are the os/arch pairs released, as krew selects them.
var Platforms = []string{"darwin/amd64", "darwin/arm64", "linux/amd64", "linux/arm64", "windows/amd64", "windows/arm64"}

const versionVar = "github.com/kubectl-crd/kubectl-crd/pkg/cmd.Version"

// semverTag is a semantic version with krew's leading v.
var semverTag = regexp.MustCompile(`^v(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

func main() {
	version := flag.String("version", "", "the release version, vMAJOR.MINOR.PATCH")
	out := flag.String("out", "dist", "the output directory")
	manifest := flag.String("template", "plugins/krew.yaml", "the krew manifest template")
	platforms := flag.String("platforms", strings.Join(Platforms, ","), "comma-separated os/arch pairs")
	vsix := flag.String("vsix", "", "the VS Code extension packaged for this version, to attach")
	flag.Parse()
	if err := run(*version, *out, *manifest, strings.Split(*platforms, ","), *vsix); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(version, out, manifest string, platforms []string, vsix string) error {
	if !semverTag.MatchString(version) {
		return fmt.Errorf("VERSION %q is not a semantic version with a leading v (such as v0.1.0)", version)
	}
	var extension []byte
	if vsix != "" {
		// Checked before anything is built: a release whose extension is
		// of another version is not made.
		var err error
		if extension, err = readExtension(vsix, version); err != nil {
			return err
		}
	}
	license, err := os.ReadFile("LICENSE")
	if err != nil {
		return err
	}
	completion, err := os.ReadFile("plugins/kubectl_complete-crd")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	mtime := buildTime()
	sums := map[string]string{}
	for _, p := range platforms {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok {
			return fmt.Errorf("platform %q is not os/arch", p)
		}
		bin, err := build(version, goos, goarch)
		if err != nil {
			return err
		}
		name := "kubectl-crd"
		files := []file{{name, bin, 0o755}, {"LICENSE", license, 0o644}}
		if goos == "windows" {
			files[0].name += ".exe"
		} else {
			files = append(files, file{"kubectl_complete-crd", completion, 0o755})
		}
		archive := fmt.Sprintf("kubectl-crd_%s_%s_%s", version, goos, goarch)
		var data []byte
		if goos == "windows" {
			archive += ".zip"
			data, err = zipFiles(files, mtime)
		} else {
			archive += ".tar.gz"
			data, err = tarGzFiles(files, mtime)
		}
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(out, archive), data, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		sums[archive] = hex.EncodeToString(sum[:])
		fmt.Println(filepath.Join(out, archive))
	}
	if extension != nil {
		name := fmt.Sprintf("kubectl-crd_%s.vsix", version)
		if err := os.WriteFile(filepath.Join(out, name), extension, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(extension)
		sums[name] = hex.EncodeToString(sum[:])
		fmt.Println(filepath.Join(out, name))
	}
	if err := writeChecksums(filepath.Join(out, "checksums.txt"), sums); err != nil {
		return err
	}
	render := Render
	if len(platforms) < len(Platforms) {
		// A build of some platforms only (a test's): the manifest lists
		// the archives that were built.
		render = renderBuilt
	}
	rendered, err := render(manifest, version, sums)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "crd.yaml"), rendered, 0o644); err != nil {
		return err
	}
	index := filepath.Join(out, "index", "plugins")
	if err := os.MkdirAll(index, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(index, "crd.yaml"), rendered, 0o644)
}

// readExtension reads a packaged VS Code extension and checks that it is
// the release's version (package.json's "version", which vsce stamps from
// "make vsix VERSION=...").
func readExtension(path, version string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: not a .vsix (a zip): %w", path, err)
	}
	f, err := zr.Open("extension/package.json")
	if err != nil {
		return nil, fmt.Errorf("%s: no extension/package.json: %w", path, err)
	}
	defer f.Close()
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.NewDecoder(f).Decode(&pkg); err != nil {
		return nil, fmt.Errorf("%s: extension/package.json: %w", path, err)
	}
	if want := strings.TrimPrefix(version, "v"); pkg.Version != want {
		return nil, fmt.Errorf("%s: the extension is version %q, the release %q (package it with make vsix VERSION=%s)", path, pkg.Version, want, version)
	}
	return data, nil
}

// build compiles a static, stripped, version-stamped binary.
func build(version, goos, goarch string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "kubectl-crd-dist-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "kubectl-crd")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w -X "+versionVar+"="+version, "-o", bin, "./cmd/kubectl-crd")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("building for %s/%s: %w", goos, goarch, err)
	}
	return os.ReadFile(bin)
}

// buildTime is the time stamped on archive entries: SOURCE_DATE_EPOCH
// when set (reproducible archives), else now.
func buildTime() time.Time {
	if s := os.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return time.Unix(n, 0).UTC()
		}
	}
	return time.Now().UTC().Truncate(time.Second)
}

type file struct {
	name string
	data []byte
	mode int64
}

func tarGzFiles(files []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		hdr := &tar.Header{Name: f.name, Mode: f.mode, Size: int64(len(f.data)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func zipFiles(files []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		hdr := &zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: mtime}
		hdr.SetMode(os.FileMode(f.mode))
		w, err := zw.CreateHeader(hdr)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writeChecksums writes "SHA256  FILE" lines, as sha256sum prints them.
func writeChecksums(name string, sums map[string]string) error {
	files := make([]string, 0, len(sums))
	for f := range sums {
		files = append(files, f)
	}
	sort.Strings(files)
	var b strings.Builder
	for _, f := range files {
		fmt.Fprintf(&b, "%s  %s\n", sums[f], f)
	}
	return os.WriteFile(name, []byte(b.String()), 0o644)
}

// Render executes the krew manifest template as krew-release-bot does
// (.TagName, and addURIAndSha writing "uri:" and "sha256:" for a download
// URL), taking each archive's sha256 from sums by the URL's file name.
func Render(templateFile, version string, sums map[string]string) ([]byte, error) {
	return render(templateFile, version, sums, false)
}

// renderBuilt renders the manifest with only the platforms whose archives
// are in sums: what a build of some platforms can be checked with.
func renderBuilt(templateFile, version string, sums map[string]string) ([]byte, error) {
	full, err := render(templateFile, version, sums, true)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(full, &m); err != nil {
		return nil, err
	}
	spec, _ := m["spec"].(map[string]any)
	platforms, _ := spec["platforms"].([]any)
	var kept []any
	for _, p := range platforms {
		uri, _ := p.(map[string]any)["uri"].(string)
		if _, ok := sums[path.Base(uri)]; ok {
			kept = append(kept, p)
		}
	}
	spec["platforms"] = kept
	return yaml.Marshal(m)
}

func render(templateFile, version string, sums map[string]string, allowMissing bool) ([]byte, error) {
	text, err := os.ReadFile(templateFile)
	if err != nil {
		return nil, err
	}
	data := struct{ TagName string }{version}
	var missing []string
	t, err := template.New(filepath.Base(templateFile)).Option("missingkey=error").Funcs(template.FuncMap{
		"addURIAndSha": func(url, tag string) (string, error) {
			u, err := template.New("url").Parse(url)
			if err != nil {
				return "", err
			}
			var b strings.Builder
			if err := u.Execute(&b, struct{ TagName string }{tag}); err != nil {
				return "", err
			}
			sum, ok := sums[path.Base(b.String())]
			if !ok {
				missing = append(missing, path.Base(b.String()))
			}
			return fmt.Sprintf("uri: %s\n    sha256: %s", b.String(), sum), nil
		},
	}).Parse(string(text))
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := t.Execute(&out, data); err != nil {
		return nil, err
	}
	if len(missing) > 0 && !allowMissing {
		return nil, errors.New("the manifest names archives that were not built: " + strings.Join(missing, ", "))
	}
	return out.Bytes(), nil
}
