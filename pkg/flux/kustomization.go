package flux

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	securefs "github.com/fluxcd/pkg/kustomize/filesys"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	kustypes "sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/yaml"
)

// originAnnotation is where kustomize writes the file an object came
// from (buildMetadata: [originAnnotations]).
const originAnnotation = "config.kubernetes.io/origin"

// errNotLocal: a source with no local directory.
var errNotLocal = errors.New("not local")

// sourceDir is the directory of f's source: the --flux-source that names
// it, else for a GitRepository the repository PATH is in.
func (r *renderer) sourceDir(f *fluxObject) (string, error) {
	ref := f.sourceRef()
	if dir, ok := r.o.Sources[ref]; ok {
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(r.cwd, dir)
		}
		return filepath.Clean(dir), nil
	}
	if strings.HasPrefix(ref, "GitRepository/") {
		return r.root, nil
	}
	return "", errNotLocal
}

// readEntry reads PATH's objects: a file's as they are, a directory's as
// Flux builds a Kustomization's path (its kustomization.yaml, or all of
// its manifests).
func (r *renderer) readEntry() ([]rendered, error) {
	st, err := os.Stat(r.entry)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return r.build(r.root, r.entry, nil)
	}
	docs, err := manifest.ReadPaths([]string{r.entry}, false, nil)
	if err != nil {
		return nil, err
	}
	var out []rendered
	for i := range docs {
		d := &docs[i]
		obj, err := d.TakeObject()
		if err != nil {
			return nil, &manifest.Error{File: d.File, Line: d.Line, Msg: err.Error()}
		}
		out = append(out, rendered{obj: &unstructured.Unstructured{Object: obj}, yaml: d.JSON,
			file: r.show(r.entry), line: d.Line, column: d.Column, node: d.YAMLNode()})
	}
	return out, nil
}

// kustomization renders a Flux Kustomization.
func (r *renderer) kustomization(f *fluxObject) error {
	src, err := r.sourceDir(f)
	if errors.Is(err, errNotLocal) {
		r.warn(fmt.Sprintf("%s: its source %s is not local: not rendered (name its directory with --flux-source %s=DIR)", f.via(), f.sourceRef(), f.sourceRef()))
		return nil
	}
	dir := filepath.Join(src, f.path())
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return fieldError{[]string{"spec", "path"}, fmt.Errorf("kustomization path not found: %s is not a directory of %s", r.show(dir), f.sourceRef())}
	}
	objs, err := r.build(src, dir, f)
	if err != nil {
		return err
	}
	r.emit(objs, f.via())
	return nil
}

// build builds dir as kustomize-controller builds a Kustomization's path:
// the Kustomization's fields (targetNamespace, patches, images, ...) put
// into the directory's kustomization.yaml by Flux's generator (written in
// memory, not to the user's files), built by Flux's secure build rooted at
// the source, then each object substituted (postBuild) and given the
// Kustomization's commonMetadata and the labels Flux sets. ks nil: a
// directory built as a Kustomization without fields would build it.
func (r *renderer) build(src, dir string, ks *fluxObject) ([]rendered, error) {
	spec := unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	if ks != nil {
		spec = *ks.obj
	}
	kfile, content, ownOrigins, err := generate(src, dir, spec)
	if err != nil {
		return nil, err
	}
	disk, err := securefs.MakeFsOnDiskSecure(src)
	if err != nil {
		return nil, err
	}
	fs := securefs.MakeFsInMemory(disk)
	if err := fs.WriteFile(kfile, content); err != nil {
		return nil, err
	}
	resources, err := fluxkustomize.Build(fs, dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize build failed: %w", err)
	}
	var vars *variables
	if ks != nil && ks.has("spec", "postBuild") {
		if vars, err = r.loadVariables(ks); err != nil {
			return nil, fieldError{[]string{"spec", "postBuild", "substituteFrom"}, err}
		}
	}
	var out []rendered
	for _, res := range resources.Resources() {
		if res.GetName() == "" || res.GetKind() == "" || res.GetApiVersion() == "" {
			return nil, fmt.Errorf("failed to decode Kubernetes apiVersion, kind and name from: %v", res.String())
		}
		o := rendered{}
		o.obj = &unstructured.Unstructured{}
		origin := readOrigin(res.GetAnnotations()[originAnnotation])
		o.file, o.line, o.column, o.node = r.files.find(dir, origin, res.GetKind(), res.GetName())
		if vars != nil {
			if o.warnings, err = r.substitute(ks, vars, res, o); err != nil {
				return nil, fmt.Errorf("post build failed for '%s': %w", res.GetName(), err)
			}
		}
		// As JSON, whose numbers unstructured's helpers can copy
		// (kustomize's own maps hold ints, which they cannot).
		js, err := res.MarshalJSON()
		if err != nil {
			return nil, err
		}
		if err := o.obj.UnmarshalJSON(js); err != nil {
			return nil, err
		}
		if text, _ := res.AsYAML(); encrypted(o.obj, text) {
			// PATH's own objects are masked: which Kustomization syncs
			// them, and whether it decrypts, is not known.
			if ks != nil && !ks.has("spec", "decryption") {
				return nil, sopsRefused(o.obj)
			}
			maskSOPS(o.obj)
		}
		if !ownOrigins {
			dropAnnotation(o.obj, originAnnotation)
		}
		if ks != nil {
			applyMetadata(o.obj, ks)
		}
		if o.yaml, err = yaml.Marshal(o.obj.Object); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// generate is the kustomization.yaml Flux's generator makes of dir for
// ks, asking kustomize to write where each object came from; ownOrigins
// tells whether the user asked for that too (the annotation is then
// theirs, and stays).
func generate(src, dir string, ks unstructured.Unstructured) (kfile string, content []byte, ownOrigins bool, err error) {
	gen := fluxkustomize.NewGeneratorWithIgnore(src, "", ks)
	content, kfile, _, err = gen.GenerateManifest(dir)
	if err != nil {
		return "", nil, false, err
	}
	var kus kustypes.Kustomization
	if err := yaml.Unmarshal(content, &kus); err != nil {
		return "", nil, false, err
	}
	ownOrigins = slices.Contains(kus.BuildMetadata, kustypes.OriginAnnotations)
	if !ownOrigins {
		kus.BuildMetadata = append(kus.BuildMetadata, kustypes.OriginAnnotations)
		if content, err = yaml.Marshal(kus); err != nil {
			return "", nil, false, err
		}
	}
	return kfile, content, ownOrigins, nil
}

// applyMetadata sets what kustomize-controller sets on each object it
// applies: spec.commonMetadata's labels and annotations, then the labels
// that name the Kustomization.
func applyMetadata(obj *unstructured.Unstructured, ks *fluxObject) {
	labels, _, _ := unstructured.NestedStringMap(ks.obj.Object, "spec", "commonMetadata", "labels")
	annotations, _, _ := unstructured.NestedStringMap(ks.obj.Object, "spec", "commonMetadata", "annotations")
	labels = mergeInto(labels, map[string]string{
		kustomizeGroup + "/name":      ks.obj.GetName(),
		kustomizeGroup + "/namespace": ks.namespace(),
	})
	obj.SetLabels(mergeInto(obj.GetLabels(), labels))
	if len(annotations) > 0 {
		obj.SetAnnotations(mergeInto(obj.GetAnnotations(), annotations))
	}
}

func mergeInto(dst, src map[string]string) map[string]string {
	if dst == nil {
		dst = map[string]string{}
	}
	for k, v := range src {
		dst[k] = v
	}
	return dst
}

func dropAnnotation(obj *unstructured.Unstructured, key string) {
	a := obj.GetAnnotations()
	if _, ok := a[key]; !ok {
		return
	}
	delete(a, key)
	if len(a) == 0 {
		unstructured.RemoveNestedField(obj.Object, "metadata", "annotations")
		return
	}
	obj.SetAnnotations(a)
}

// fieldError is an error about a field of a Kustomization or
// HelmRelease, placed at the field.
type fieldError struct {
	field []string
	err   error
}

func (e fieldError) Error() string { return strings.Join(e.field, ".") + ": " + e.err.Error() }
func (e fieldError) Unwrap() error { return e.err }

// placedError is an error placed in another file than the Kustomization's
// or HelmRelease's (the ConfigMap that gives a value a chart refuses).
type placedError struct {
	file         string
	line, column int
	err          error
}

func (e placedError) Error() string { return e.err.Error() }
func (e placedError) Unwrap() error { return e.err }
