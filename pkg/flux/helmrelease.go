package flux

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// helmRun is a HelmRelease's helm template, started: its output is read
// when the Kustomizations queued before it are rendered (helm runs beside
// them, on another core).
type helmRun struct {
	f              *fluxObject
	at             int // where its texts go in the render's texts
	chart, ns, tmp string
	done           chan struct{}
	stdout, stderr bytes.Buffer
	err            error
}

// helmRelease starts rendering a HelmRelease whose chart is a directory
// of a local source, as helm-controller installs it: its values merged as
// helm-controller merges them (from the objects rendered so far), rendered
// by helm template for the release's name and namespace; nil when it is
// not rendered (said once).
func (r *renderer) helmRelease(f *fluxObject) (*helmRun, error) {
	if f.has("spec", "chartRef") {
		r.warn(fmt.Sprintf("%s: its chartRef %s/%s is not local: not rendered", f.via(), f.str("spec", "chartRef", "kind"), f.str("spec", "chartRef", "name")))
		return nil, nil
	}
	src, err := r.sourceDir(f)
	if errors.Is(err, errNotLocal) {
		r.warn(fmt.Sprintf("%s: its chart's source %s is not local: not rendered (name a directory of charts with --flux-source %s=DIR)", f.via(), f.sourceRef(), f.sourceRef()))
		return nil, nil
	}
	if f.has("spec", "postRenderers") {
		r.warn(fmt.Sprintf("%s: its postRenderers are not applied", f.via()))
	}
	chart := filepath.Join(src, path.Clean("/" + f.str("spec", "chart", "spec", "chart"))[1:])
	if _, err := os.Stat(filepath.Join(chart, "Chart.yaml")); err != nil {
		return nil, fieldError{[]string{"spec", "chart", "spec", "chart"}, fmt.Errorf("no chart at %s (a directory with a Chart.yaml in %s)", r.show(chart), f.sourceRef())}
	}
	helm := r.o.Helm
	if helm == "" {
		if helm, err = exec.LookPath("helm"); err != nil {
			return nil, errors.New("its chart is rendered by helm, which is not on PATH: install it, or name it with --helm")
		}
	}
	values, err := r.helmValues(f)
	if err != nil {
		return nil, err
	}
	run := &helmRun{f: f, at: len(r.texts), chart: chart, done: make(chan struct{})}
	if run.tmp, err = os.MkdirTemp("", "kubectl-crd-helm-"); err != nil {
		return nil, err
	}
	if files, _, _ := unstructured.NestedStringSlice(f.obj.Object, "spec", "chart", "spec", "valuesFiles"); len(files) > 0 {
		// source-controller packages the chart with these files merged
		// as its values.yaml.
		if run.chart, err = chartWithValuesFiles(src, chart, files, run.tmp); err != nil {
			os.RemoveAll(run.tmp)
			return nil, fieldError{[]string{"spec", "chart", "spec", "valuesFiles"}, err}
		}
	}
	valuesFile := filepath.Join(run.tmp, "values.yaml")
	data, err := yaml.Marshal(values)
	if err == nil {
		err = os.WriteFile(valuesFile, data, 0o600)
	}
	if err != nil {
		os.RemoveAll(run.tmp)
		return nil, err
	}
	if run.ns = f.str("spec", "targetNamespace"); run.ns == "" {
		run.ns = f.namespace()
	}
	args := []string{"template", releaseName(f), run.chart, "--namespace", run.ns, "--values", valuesFile, "--skip-tests"}
	if f.str("spec", "install", "crds") != "Skip" {
		args = append(args, "--include-crds")
	}
	cmd := exec.CommandContext(r.ctx, helm, args...)
	cmd.Stdout, cmd.Stderr = &run.stdout, &run.stderr
	go func() {
		defer close(run.done)
		run.err = cmd.Run()
	}()
	return run, nil
}

// finish waits for helm and reads what it rendered.
func (r *renderer) finish(run *helmRun) ([]rendered, error) {
	<-run.done
	defer os.RemoveAll(run.tmp)
	if run.err != nil {
		msg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(run.stderr.String()), "Error: "))
		if msg == "" {
			msg = run.err.Error()
		}
		return nil, r.valuesError(run.f, msg)
	}
	return r.helmObjects(run.f, run.chart, run.ns, run.stdout.Bytes())
}

// releaseName is helm-controller's: spec.releaseName, else the
// HelmRelease's name after its targetNamespace.
func releaseName(f *fluxObject) string {
	if n := f.str("spec", "releaseName"); n != "" {
		return n
	}
	if ns := f.str("spec", "targetNamespace"); ns != "" {
		return ns + "-" + f.obj.GetName()
	}
	return f.obj.GetName()
}

// chartWithValuesFiles copies chart into tmp with the valuesFiles (paths
// in the source) merged in order as its values.yaml, as source-controller
// packages a chart of a GitRepository.
func chartWithValuesFiles(src, chart string, files []string, tmp string) (string, error) {
	merged := map[string]any{}
	for _, p := range files {
		data, err := os.ReadFile(filepath.Join(src, path.Clean("/" + p)[1:]))
		if err != nil {
			return "", fmt.Errorf("values file %s: %w", p, err)
		}
		v, err := readValues(data)
		if err != nil {
			return "", fmt.Errorf("values file %s: %w", p, err)
		}
		merged = mergeMaps(merged, v)
	}
	out := filepath.Join(tmp, "chart", filepath.Base(chart))
	if err := os.CopyFS(out, os.DirFS(chart)); err != nil {
		return "", err
	}
	data, err := yaml.Marshal(merged)
	if err != nil {
		return "", err
	}
	return out, os.WriteFile(filepath.Join(out, "values.yaml"), data, 0o600)
}

// helmObjects are the documents helm template printed, each named by its
// template's file, in the release's namespace when it names none, with
// helm-controller's labels (not on crds/ files, which Helm installs as
// they are).
func (r *renderer) helmObjects(f *fluxObject, chart, ns string, out []byte) ([]rendered, error) {
	var objs []rendered
	for _, doc := range bytes.Split(out, []byte("\n---")) {
		file := r.show(chart)
		if template, ok := sourceOf(doc); ok {
			_, inChart, _ := strings.Cut(template, "/")
			file = r.show(filepath.Join(chart, filepath.FromSlash(inChart)))
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("helm template's output %s: %w", file, err)
		}
		if s := string(bytes.TrimSpace(js)); s == "null" || s == "{}" {
			continue
		}
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(js); err != nil {
			return nil, fmt.Errorf("helm template's output %s: %w", file, err)
		}
		if !strings.Contains(file, string(filepath.Separator)+"crds"+string(filepath.Separator)) {
			u.SetLabels(mergeInto(u.GetLabels(), map[string]string{
				helmGroup + "/name":      f.obj.GetName(),
				helmGroup + "/namespace": f.namespace(),
			}))
		}
		data, err := yaml.Marshal(u.Object)
		if err != nil {
			return nil, err
		}
		objs = append(objs, rendered{obj: u, yaml: data, file: file, namespace: ns})
	}
	return objs, nil
}

// sourceOf is the template helm template names a document's source in
// its comment "# Source: CHART/templates/x.yaml".
func sourceOf(doc []byte) (string, bool) {
	for line := range strings.Lines(string(doc)) {
		if template, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "# Source: "); ok {
			return template, true
		}
	}
	return "", false
}

// valuesError places what helm said of the values: a value a schema
// refuses at the field of spec.values that gives it, else at the key of
// the valuesFrom ConfigMap or Secret that does (the last one: later
// values win), else at spec.valuesFrom, else at the HelmRelease.
func (r *renderer) valuesError(f *fluxObject, msg string) error {
	if !strings.Contains(msg, "schema") {
		return fmt.Errorf("helm template failed: %s", msg)
	}
	paths := schemaPaths(msg)
	for _, p := range paths {
		if f.has(append([]string{"spec", "values"}, p...)...) {
			return fieldError{append([]string{"spec", "values"}, p...), errors.New(msg)}
		}
	}
	for _, p := range paths {
		if err := r.fromValuesFrom(f, p, msg); err != nil {
			return err
		}
	}
	if f.has("spec", "valuesFrom") {
		return fieldError{[]string{"spec", "valuesFrom"}, errors.New(msg)}
	}
	return errors.New(msg)
}

// fromValuesFrom places msg at the key of the last valuesFrom that gives
// the value at p (nil: none does, or its object's place is not known).
func (r *renderer) fromValuesFrom(f *fluxObject, p []string, msg string) error {
	refs, _, _ := unstructured.NestedSlice(f.obj.Object, "spec", "valuesFrom")
	for i := len(refs) - 1; i >= 0; i-- {
		ref, _ := refs[i].(map[string]any)
		s := func(k string) string { v, _ := ref[k].(string); return v }
		key := s("valuesKey")
		if key == "" {
			key = "values.yaml"
		}
		o := r.rendered(s("kind"), f.namespace(), s("name"))
		if o == nil {
			continue
		}
		gives := false
		if target := s("targetPath"); target != "" {
			t := strings.Split(target, ".")
			n := min(len(t), len(p))
			gives = slices.Equal(t[:n], p[:n])
		} else if data, ok := valuesData(s("kind"), o.obj.Object, key); ok {
			if v, err := readValues([]byte(data)); err == nil {
				_, gives, _ = unstructured.NestedFieldNoCopy(v, p...)
			}
		}
		if !gives {
			continue
		}
		if o.line == 0 {
			return nil
		}
		d := manifest.Document{Line: o.line, Column: o.column, Node: o.node}
		line, column := d.Position("data." + key)
		return placedError{o.file, line, column, fmt.Errorf("spec.valuesFrom[%d] (%s %s, key %s): %s", i, s("kind"), s("name"), key, msg)}
	}
	return nil
}

// schemaPaths are the value paths helm names in a schema error, as
// "- at '/a/b': ..." or "- a.b: ...".
func schemaPaths(msg string) [][]string {
	var out [][]string
	for _, line := range strings.Split(msg, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "- ") {
			continue
		}
		line = strings.TrimPrefix(line, "- ")
		if at, ok := strings.CutPrefix(line, "at '"); ok {
			p, _, _ := strings.Cut(at, "'")
			if p = strings.Trim(p, "/"); p != "" {
				out = append(out, strings.Split(p, "/"))
			}
			continue
		}
		if p, _, ok := strings.Cut(line, ": "); ok && !strings.Contains(p, " ") {
			out = append(out, strings.Split(p, "."))
		}
	}
	return out
}
