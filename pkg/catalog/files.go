package catalog

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	sigsjson "sigs.k8s.io/json"
)

// Files is a Source over CRDs read from local files. Each CRD is decoded
// in full (its schemas) only when it is asked for: resolving names needs
// its group, names and versions alone.
type Files struct {
	crds      []*fileCRD // sorted by name
	byName    map[string]*fileCRD
	discovery *memoryDiscovery
	// variants are the other files of a CRD generated per feature set
	// (see FeatureSetAnnotation); byName has the Default one, else the
	// first read.
	variants map[string][]*fileCRD
}

// fileCRD is one CRD document: its outline, and how to decode the whole
// CRD. The whole CRD is decoded again each time it is asked for, not kept:
// its schemas are most of a CRD's memory, and a caller keeps only what it
// uses (validate keeps each version's validator, not the CRD).
type fileCRD struct {
	outline *apiextensionsv1.CustomResourceDefinition
	origin  string // FILE:LINE
	line    int
	decode  func() (*CRD, error) // the whole CRD; safe to call concurrently
}

func (f *fileCRD) decoded() (*CRD, error) { return f.decode() }

// keep makes the whole CRD decode from its encoded form (what the index
// wrote for it) instead of its document.
func (f *fileCRD) keep(encoded []byte) {
	origin := f.origin
	f.decode = func() (*CRD, error) {
		crd := &apiextensionsv1.CustomResourceDefinition{}
		if err := crd.Unmarshal(encoded); err != nil {
			return nil, err
		}
		crd.APIVersion, crd.Kind = apiextensionsv1.SchemeGroupVersion.String(), "CustomResourceDefinition"
		return &CRD{CustomResourceDefinition: crd, Origin: origin}, nil
	}
}

// ReadFiles reads the CRDs in paths (files or directories, read
// recursively, and what src reads: standard input, URLs, git revisions,
// charts), files through index when it is not nil. Documents of other
// kinds are ignored. The same CRD name defined twice is an error naming
// both places.
func ReadFiles(paths []string, src manifest.Sources, index *Index) (*Files, error) {
	entries, err := manifest.Entries(paths, true, src)
	if err != nil {
		return nil, err
	}
	read := make([][]*fileCRD, len(entries))
	errs := make([]error, len(entries))
	parallel.Each(len(entries), 1, func(i int) {
		if t := entries[i].Text; t != nil {
			var docs []manifest.Document
			if docs, errs[i] = manifest.Read(t.Name, t.Data); errs[i] == nil {
				read[i], errs[i] = fileCRDs(docs)
			}
			return
		}
		read[i], errs[i] = readCRDFile(entries[i].Path, index)
	})
	f := &Files{byName: map[string]*fileCRD{}}
	for i := range entries {
		if errs[i] != nil {
			return nil, errs[i]
		}
		for _, fc := range read[i] {
			if err := f.add(fc); err != nil {
				return nil, err
			}
		}
	}
	if len(f.crds) == 0 {
		// A source named for its CRDs that holds none is a mistake (a
		// wrong directory, a path from the wrong place): nothing would be
		// checked.
		return nil, fmt.Errorf("no CustomResourceDefinition in %s", strings.Join(paths, ", "))
	}
	f.sorted()
	return f, nil
}

// readCRDFile reads the CRDs of one file: from its index entry, or from
// the file (and then indexes it).
func readCRDFile(path string, index *Index) ([]*fileCRD, error) {
	if crds, ok := index.load(path); ok {
		return crds, nil
	}
	identity, changed, idErr := fileIdentity(path)
	docs, err := manifest.ReadFile(path)
	if err != nil {
		return nil, err
	}
	crds, err := fileCRDs(docs)
	if err != nil {
		return nil, err
	}
	if idErr == nil {
		index.store(path, identity, changed, crds)
	}
	return crds, nil
}

// fileCRDs reads the outline of each CRD among docs.
func fileCRDs(docs []manifest.Document) ([]*fileCRD, error) {
	var out []*fileCRD
	for i := range docs {
		d := &docs[i]
		if !IsCRD(d.TypeMeta()) {
			continue
		}
		// kubectl would apply the last of a key given twice; a CRD
		// source read for its schema is refused, not guessed at.
		if len(d.Warnings) > 0 {
			return nil, d.Warnings[0]
		}
		fc, err := newFileCRD(d)
		if err != nil {
			return nil, err
		}
		out = append(out, fc)
	}
	return out, nil
}

// NewFiles makes a Source of CRDs already decoded.
func NewFiles(crds []*CRD) (*Files, error) {
	f := &Files{byName: map[string]*fileCRD{}}
	for _, crd := range crds {
		fc := &fileCRD{outline: crd.CustomResourceDefinition, origin: crd.Origin}
		fc.decode = func() (*CRD, error) { return crd, nil }
		if err := f.add(fc); err != nil {
			return nil, err
		}
	}
	f.sorted()
	return f, nil
}

func (f *Files) add(fc *fileCRD) error {
	name := fc.outline.Name
	if first, dup := f.byName[name]; dup {
		for _, other := range append([]*fileCRD{first}, f.variants[name]...) {
			if !variantOf(other.outline, fc.outline) {
				return fmt.Errorf("CustomResourceDefinition %q is defined twice: at %s and at %s", name, other.origin, fc.origin)
			}
		}
		if f.variants == nil {
			f.variants = map[string][]*fileCRD{}
		}
		if preferVariant(first.outline, fc.outline) {
			f.byName[name] = fc
			f.crds[slices.Index(f.crds, first)] = fc
			fc = first
		}
		f.variants[name] = append(f.variants[name], fc)
		return nil
	}
	f.byName[name] = fc
	f.crds = append(f.crds, fc)
	return nil
}

func (f *Files) sorted() {
	sort.SliceStable(f.crds, func(i, j int) bool { return f.crds[i].outline.Name < f.crds[j].outline.Name })
	outlines := make([]*apiextensionsv1.CustomResourceDefinition, len(f.crds))
	for i, fc := range f.crds {
		outlines[i] = fc.outline
	}
	f.discovery = newMemoryDiscovery(outlines)
}

// newFileCRD reads the outline of a CRD document (see Outline), defaulted
// as the server defaults it. A v1 document's outline is read without its
// schemas; a v1beta1 CRD, whose outline needs the server's conversion, is
// decoded whole.
func newFileCRD(d *manifest.Document) (*fileCRD, error) {
	fc := &fileCRD{origin: fmt.Sprintf("%s:%d", d.File, d.Line), line: d.Line}
	fc.decode = func() (*CRD, error) { return DecodeCRD(d) }
	if d.TypeMeta().APIVersion != apiextensionsv1.SchemeGroupVersion.String() {
		crd, err := fc.decoded()
		if err != nil {
			return nil, err
		}
		fc.outline = Outline(crd.CustomResourceDefinition)
	} else {
		var o outline
		// Case-sensitive, as the server's decoder reads the document.
		if err := sigsjson.UnmarshalCaseSensitivePreserveInts(d.JSON, &o); err != nil {
			return nil, invalidCRD(d, err)
		}
		fc.outline = o.crd()
		theCodec().scheme.Default(fc.outline)
	}
	return fc, servable(fc.outline, d)
}

func (f *Files) Discovery() discovery.CachedDiscoveryInterface { return f.discovery }

func (f *Files) Get(_ context.Context, name string) (*CRD, error) {
	if fc, ok := f.byName[name]; ok {
		return fc.decoded()
	}
	return nil, apierrors.NewNotFound(apiextensionsv1.Resource("customresourcedefinitions"), name)
}

func (f *Files) List(ctx context.Context) ([]*CRD, error) {
	return f.ListWhere(ctx, func(*apiextensionsv1.CustomResourceDefinition) bool { return true })
}

func (f *Files) Outlines(context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	out := make([]*apiextensionsv1.CustomResourceDefinition, len(f.crds))
	for i, fc := range f.crds {
		out[i] = fc.outline
	}
	return out, nil
}

// ListWhere decodes the CRDs whose outlines keep says yes to.
func (f *Files) ListWhere(_ context.Context, keep func(*apiextensionsv1.CustomResourceDefinition) bool) ([]*CRD, error) {
	out := []*CRD{}
	for _, fc := range f.crds {
		if !keep(fc.outline) {
			continue
		}
		crd, err := fc.decoded()
		if err != nil {
			return nil, err
		}
		out = append(out, crd)
	}
	return out, nil
}
