// Package flux renders what Flux applies from a cluster directory, the
// source flux:PATH: the objects of PATH, then what each Kustomization
// (kustomize.toolkit.fluxcd.io/v1) and HelmRelease (helm.toolkit.fluxcd.io/v2)
// among them renders, followed to the Kustomizations and HelmReleases
// those render in turn, as flux build --recursive does. Kustomizations are
// built with kustomize-controller's own generator and substitution
// (github.com/fluxcd/pkg/kustomize); HelmReleases with the user's helm
// binary, their values merged as helm-controller merges them.
//
// Each object is a manifest.Text marked with where it came from: the
// repository file and line kustomize read it from, and what rendered it.
// What cannot be rendered (a path that does not exist, a chart whose
// values break its schema) is a text that fails, at the Kustomization's or
// HelmRelease's line: the other objects are still checked.
package flux

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Prefix starts a flux source's path: flux:PATH.
const Prefix = "flux:"

// Options say how Flux's objects are rendered.
type Options struct {
	// Sources are the local directories of Flux sources, by
	// KIND/NAMESPACE/NAME (--flux-source, as flux build's
	// --local-sources). A GitRepository not named here is the git work
	// tree that holds PATH (outside git, the current directory).
	Sources map[string]string
	// Helm is the helm binary that renders charts ("": helm on PATH).
	Helm string
	// Cluster, when set, reads a ConfigMap or Secret (kind) from the
	// cluster, for a substituteFrom or valuesFrom that the rendered
	// objects do not hold; an error for which apierrors.IsNotFound holds
	// when there is none. nil: offline, nothing is read from a cluster.
	Cluster func(ctx context.Context, kind, namespace, name string) (map[string]any, error)
	// Warn is told what is not rendered, once each.
	Warn func(string)
	// Dir is where relative paths start ("": the current directory).
	Dir string
}

// ParseSource reads one --flux-source: KIND/NAMESPACE/NAME=DIR.
func ParseSource(s string) (key, dir string, err error) {
	ref, dir, ok := strings.Cut(s, "=")
	parts := strings.Split(ref, "/")
	if !ok || dir == "" || len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", fmt.Errorf("--flux-source %q: want KIND/NAMESPACE/NAME=DIR, as GitRepository/flux-system/infra=../infra", s)
	}
	return ref, dir, nil
}

// Render renders the objects Flux applies from path (without Prefix), in
// order.
func Render(ctx context.Context, path string, o Options) ([]manifest.Text, error) {
	defer raiseGC()()
	r, err := newRenderer(ctx, path, o)
	if err != nil {
		return nil, err
	}
	if err := r.run(); err != nil {
		return nil, err
	}
	return r.texts, nil
}

// renderer holds one Render's state.
type renderer struct {
	ctx context.Context
	o   Options
	// cwd is where paths are shown from; root is the GitRepository's
	// directory when no --flux-source names it.
	cwd, root string
	entry     string // PATH, absolute
	texts     []manifest.Text
	// objects are the objects rendered so far, for substituteFrom and
	// valuesFrom: Flux reads those from the cluster, where the
	// repository's objects are.
	objects []rendered
	// done are the Kustomizations and HelmReleases rendered, by
	// KIND/NAMESPACE/NAME: a cluster directory is often rendered both
	// as PATH and by the Kustomization that syncs it.
	done map[string]bool
	// deferred are those put off once, for a ConfigMap or Secret they
	// read that nothing rendered before them holds.
	deferred map[string]bool
	queue    []*fluxObject
	warned   map[string]bool
	files    *origins
	// fromCluster are the cluster's answers, by KIND/NAMESPACE/NAME.
	fromCluster map[string]clusterAnswer
}

func newRenderer(ctx context.Context, path string, o Options) (*renderer, error) {
	cwd := o.Dir
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	entry := path
	if !filepath.IsAbs(entry) {
		entry = filepath.Join(cwd, entry)
	}
	st, err := os.Stat(entry)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, errors.New("no such file or directory")
		}
		return nil, err
	}
	r := &renderer{ctx: ctx, o: o, cwd: cwd, entry: filepath.Clean(entry), done: map[string]bool{},
		deferred: map[string]bool{}, warned: map[string]bool{}, fromCluster: map[string]clusterAnswer{}}
	dir := r.entry
	if !st.IsDir() {
		dir = filepath.Dir(r.entry)
	}
	r.root = sourceRoot(dir, cwd)
	r.files = newOrigins(r.show)
	return r, nil
}

// sourceRoot is the directory a GitRepository of the fleet stands for:
// the git work tree that holds dir; outside git, the current directory,
// or dir itself when it is not under it.
func sourceRoot(dir, cwd string) string {
	if root := gitRoot(dir); root != "" {
		return root
	}
	if dir == cwd || strings.HasPrefix(dir, cwd+string(filepath.Separator)) {
		return cwd
	}
	return dir
}

// gitRoot is the work tree that holds dir ("" outside git).
func gitRoot(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return ""
	}
	return filepath.Clean(strings.TrimSpace(string(out)))
}

// show is how a path is named in messages: from the current directory
// when it is under it.
func (r *renderer) show(abs string) string {
	if rel, err := filepath.Rel(r.cwd, abs); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return abs
}

// warn tells the user once what is not rendered.
func (r *renderer) warn(msg string) {
	if r.o.Warn != nil && !r.warned[msg] {
		r.warned[msg] = true
		r.o.Warn(msg)
	}
}

// run renders PATH and what it leads to.
func (r *renderer) run() error {
	objs, err := r.readEntry()
	if err != nil {
		return err
	}
	// When a Kustomization of PATH syncs PATH itself (flux-system's), its
	// rendering is what Flux applies of PATH: its substitutions and
	// target namespace included.
	for _, obj := range objs {
		if ks := asFlux(obj); ks != nil && ks.kind == kindKustomization {
			if dir, err := r.sourceDir(ks); err == nil && filepath.Join(dir, ks.path()) == r.entry {
				r.queue = append(r.queue, ks)
				r.drain()
				return nil
			}
		}
	}
	r.emit(objs, "flux:"+r.show(r.entry))
	r.drain()
	return nil
}

// drain renders the queued Kustomizations and HelmReleases, and those
// they render, each once, in order. A HelmRelease's helm runs beside the
// Kustomizations after it; its objects are read when the queue is empty,
// and take its place in the order. One that reads a ConfigMap or Secret
// that nothing rendered so far holds is put off until all else is
// rendered, once.
func (r *renderer) drain() {
	var later []*fluxObject
	for len(r.queue) > 0 {
		var runs []*helmRun
		for len(r.queue) > 0 {
			f := r.queue[0]
			r.queue = r.queue[1:]
			if r.done[f.key()] {
				continue
			}
			r.done[f.key()] = true
			if f.suspended() {
				r.warn(fmt.Sprintf("%s: suspended, Flux applies nothing of it: not rendered", f.via()))
				continue
			}
			run, err := r.render(f)
			switch {
			case missing(err) && !r.deferred[f.key()]:
				// Rendered later in the order, as Flux applies what
				// dependsOn waits for first: what it reads may be.
				r.deferred[f.key()] = true
				r.done[f.key()] = false
				later = append(later, f)
			case err != nil:
				r.fail(f, err)
			case run != nil:
				runs = append(runs, run)
			}
		}
		r.finishAll(runs)
		if len(r.queue) == 0 {
			// Those put off, once all else is rendered.
			r.queue, later = later, nil
		}
	}
}

// missing tells whether err is a ConfigMap or Secret that a
// substituteFrom or valuesFrom names and that nothing rendered so far
// holds.
func missing(err error) bool {
	return apierrors.IsNotFound(err) || errors.Is(err, errNotFound)
}

// finishAll reads the helm runs' objects, in their order, into their
// places.
func (r *renderer) finishAll(runs []*helmRun) {
	texts := make([][]manifest.Text, len(runs))
	for i, run := range runs {
		objs, err := r.finish(run)
		if err != nil {
			texts[i] = []manifest.Text{r.failure(run.f, err)}
			continue
		}
		texts[i] = r.textsOf(objs, run.f.via())
	}
	for i := len(runs) - 1; i >= 0; i-- {
		r.texts = slices.Insert(r.texts, runs[i].at, texts[i]...)
	}
}

// render renders one Kustomization, or starts a HelmRelease's helm; a
// panic in the code it calls is its error, not the command's end.
func (r *renderer) render(f *fluxObject) (run *helmRun, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("rendering it failed: %v", p)
		}
	}()
	switch f.kind {
	case kindKustomization:
		return nil, r.kustomization(f)
	case kindHelmRelease:
		return r.helmRelease(f)
	}
	return nil, nil
}

// emit adds rendered objects as texts.
func (r *renderer) emit(objs []rendered, via string) {
	r.texts = append(r.texts, r.textsOf(objs, via)...)
}

// textsOf are rendered objects as texts; the objects are kept for
// substituteFrom and valuesFrom, and the Kustomizations and HelmReleases
// among them queued.
func (r *renderer) textsOf(objs []rendered, via string) []manifest.Text {
	var texts []manifest.Text
	for _, o := range objs {
		r.objects = append(r.objects, o)
		texts = append(texts, manifest.Text{Name: o.file, Data: o.yaml, Rendered: &manifest.Rendered{
			Via: via, Line: o.line, Column: o.column, Node: o.node, Namespace: o.namespace, Warnings: o.warnings}})
		if f := asFlux(o); f != nil {
			r.queue = append(r.queue, f)
		}
	}
	return texts
}

// fail adds what f could not render as a text that fails.
func (r *renderer) fail(f *fluxObject, err error) {
	r.texts = append(r.texts, r.failure(f, err))
}

// failure is a text that fails, at f's line (or at the field the error is
// about).
func (r *renderer) failure(f *fluxObject, err error) manifest.Text {
	file, line, column := f.file, f.line, f.column
	var fe fieldError
	var pe placedError
	switch {
	case errors.As(err, &pe):
		file, line, column = pe.file, pe.line, pe.column
	case errors.As(err, &fe):
		line, column = f.at(fe.field...)
	}
	return manifest.Text{Name: file, Rendered: &manifest.Rendered{
		Via: f.via(), Line: line, Column: column, Err: fmt.Sprintf("%s %s/%s: %v", f.kind, f.namespace(), f.obj.GetName(), err)}}
}
