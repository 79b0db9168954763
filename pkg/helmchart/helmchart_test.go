package helmchart

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

const charts = "../../test/testdata/charts"

// objects are the documents of texts, each as canonical JSON.
func objects(t *testing.T, texts []manifest.Text) []string {
	t.Helper()
	var out []string
	for _, x := range texts {
		docs, err := manifest.Read(x.Name, x.Data)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			var v any
			if err := json.Unmarshal(d.JSON, &v); err != nil {
				t.Fatal(err)
			}
			js, _ := json.Marshal(v)
			out = append(out, string(js))
		}
	}
	return out
}

// installedCRDs are the documents of helm template --include-crds's
// output that come from crds/ files (its "# Source:" line names the file).
func installedCRDs(t *testing.T, printed []byte) []string {
	t.Helper()
	var crds []manifest.Text
	for doc := range strings.SplitSeq(string(printed), "\n---\n") {
		source, _, _ := strings.Cut(strings.TrimPrefix(doc, "---\n"), "\n")
		if strings.HasPrefix(source, "# Source: ") && strings.Contains(source, "/crds/") {
			crds = append(crds, manifest.Text{Name: source, Data: []byte(doc)})
		}
	}
	return objects(t, crds)
}

// TestAsHelmInstalls reads the chart's CRDs as helm installs them (the
// fixture was printed once by helm v3.22.0, the command at its top): its
// crds/ files and its dependency's, in that order; the templates are not
// read (they are not YAML before they are rendered).
func TestAsHelmInstalls(t *testing.T) {
	texts, err := Read(filepath.Join(charts, "widgets"))
	if err != nil {
		t.Fatal(err)
	}
	printed, err := os.ReadFile(filepath.Join(charts, "widgets.rendered.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got, want := objects(t, texts), installedCRDs(t, printed)
	if len(want) != 2 || !slices.Equal(got, want) {
		t.Errorf("read:\n%s\nhelm installs:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, x := range texts {
		if strings.Contains(x.Name, "templates") {
			t.Errorf("%s read", x.Name)
		}
	}
}

// TestCRDsAsTheyAre: a chart gives its crds/ files, named by their path,
// with their lines.
func TestCRDsAsTheyAre(t *testing.T) {
	dir := filepath.Join(charts, "widgets")
	texts, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, "crds", "widgets.example.com.yaml")
	if len(texts) != 2 || texts[0].Name != want || texts[1].Name != filepath.Join(dir, "charts", "gadgets", "crds", "gadgets.charts.example.com.yaml") {
		t.Fatalf("read %v, want %s and the dependency's", names(texts), want)
	}
	onDisk, _ := os.ReadFile(want)
	if string(texts[0].Data) != string(onDisk) {
		t.Error("the file was not read as it is")
	}
}

// TestArchive reads a chart packed as helm package packs it (CHART/ at
// the top of a .tgz), its files named ARCHIVE#CHART/FILE.
func TestArchive(t *testing.T) {
	archive := filepath.Join(t.TempDir(), "widgets-0.1.0.tgz")
	pack(t, filepath.Join(charts, "widgets"), "widgets", archive)
	if !Is(archive) {
		t.Fatal("the archive is not taken for a chart")
	}
	texts, err := Read(archive)
	if err != nil {
		t.Fatal(err)
	}
	fromDir, err := Read(filepath.Join(charts, "widgets"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := objects(t, texts), objects(t, fromDir); !slices.Equal(got, want) {
		t.Errorf("read %d objects from the archive, want the directory's %d", len(got), len(want))
	}
	if want := archive + "#widgets/crds/widgets.example.com.yaml"; texts[0].Name != want {
		t.Errorf("first text named %q, want %q", texts[0].Name, want)
	}
}

func TestCannotRead(t *testing.T) {
	if Is(charts) {
		t.Error("a directory without Chart.yaml is taken for a chart")
	}
	templatesOnly := t.TempDir()
	write(t, filepath.Join(templatesOnly, "Chart.yaml"), "apiVersion: v2\nname: plain\nversion: 1.0.0\n")
	write(t, filepath.Join(templatesOnly, "templates", "cm.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n")
	noVersion := t.TempDir()
	write(t, filepath.Join(noVersion, "Chart.yaml"), "apiVersion: v2\nname: plain\n")
	for _, c := range []struct {
		name, dir, want string
	}{
		{"templates only", templatesOnly, "the chart has no crds/ files; what its templates render is read from helm template's output"},
		{"a Chart.yaml Helm refuses", noVersion, "not a chart Helm loads: validation: chart.metadata.version is required"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Read(c.dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}

func names(texts []manifest.Text) []string {
	var out []string
	for _, x := range texts {
		out = append(out, x.Name)
	}
	return out
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// pack writes dir's files to a gzipped tar under top/.
func pack(t *testing.T, dir, top, archive string) {
	t.Helper()
	f, err := os.Create(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if err := tw.WriteHeader(&tar.Header{Name: top + "/" + filepath.ToSlash(rel), Mode: 0o644, Size: int64(len(data))}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if err == nil {
		err = gz.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestAgainstHelm compares with a helm binary, when one is given
// ($HELM) or on PATH: the fixture above was printed this way once; this
// checks Read again against the helm at hand.
func TestAgainstHelm(t *testing.T) {
	helm := os.Getenv("HELM")
	if helm == "" {
		var err error
		if helm, err = exec.LookPath("helm"); err != nil {
			t.Skip("no helm binary ($HELM, or helm on PATH): the fixture printed once by helm v3.22.0 stands for it")
		}
	}
	out, err := exec.Command(helm, "template", "release-name", filepath.Join(charts, "widgets"), "--include-crds", "--kube-version", "v1.37.0").Output()
	if err != nil {
		t.Fatal(err)
	}
	texts, err := Read(filepath.Join(charts, "widgets"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := objects(t, texts), installedCRDs(t, out); !slices.Equal(got, want) {
		t.Errorf("read:\n%s\n%s installs:\n%s", strings.Join(got, "\n"), helm, strings.Join(want, "\n"))
	}
}
