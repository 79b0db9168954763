package catalog

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/discovery"
	sigsjson "sigs.k8s.io/json"
)

// Scheme returns a scheme of the apiextensions types, every version and
// the internal one, as the server installs it.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	apiextensionsinstall.Install(s)
	return s
}

// crdCodec decodes CRDs of any version as the server does on create:
// defaulted, then converted to the internal type.
type crdCodec struct {
	scheme  *runtime.Scheme
	decoder runtime.Decoder
}

var (
	codecOnce sync.Once
	codec     crdCodec
)

func theCodec() crdCodec {
	codecOnce.Do(func() {
		s := Scheme()
		codec = crdCodec{scheme: s, decoder: serializer.NewCodecFactory(s).UniversalDecoder()}
	})
	return codec
}

// DecodeInternal decodes a CRD document of any version, defaulted, into the
// internal type, as the server does on create.
func DecodeInternal(data []byte) (*apiextensions.CustomResourceDefinition, error) {
	obj, _, err := theCodec().decoder.Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	crd, ok := obj.(*apiextensions.CustomResourceDefinition)
	if !ok {
		return nil, fmt.Errorf("not a CustomResourceDefinition: %T", obj)
	}
	return crd, nil
}

// IsCRD tells whether a document is a CustomResourceDefinition.
func IsCRD(tm manifest.TypeMeta) bool {
	return tm.Kind == "CustomResourceDefinition" &&
		(tm.APIVersion == "apiextensions.k8s.io/v1" || tm.APIVersion == "apiextensions.k8s.io/v1beta1")
}

// DecodeCRD decodes one CRD document, defaulted and converted to v1.
func DecodeCRD(doc *manifest.Document) (*CRD, error) {
	internal, err := DecodeInternal(doc.JSON)
	if err != nil {
		return nil, invalidCRD(doc, err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := theCodec().scheme.Convert(internal, crd, nil); err != nil {
		return nil, invalidCRD(doc, err)
	}
	crd.APIVersion, crd.Kind = apiextensionsv1.SchemeGroupVersion.String(), "CustomResourceDefinition"
	return &CRD{CustomResourceDefinition: crd, Origin: fmt.Sprintf("%s:%d", doc.File, doc.Line)}, nil
}

func invalidCRD(doc *manifest.Document, err error) error {
	return &manifest.Error{File: doc.File, Line: doc.Line, Column: doc.Column, Msg: "invalid CustomResourceDefinition: " + err.Error()}
}

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

// Outline is what resolving names and versions and listing CRDs need of
// a CRD: its name, labels, feature-set annotations and creation time,
// group, names, scope,
// versions (with their subresources), conversion and status, without the
// schemas and without the rest of its metadata.
func Outline(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	o := &apiextensionsv1.CustomResourceDefinition{}
	o.Name, o.Labels, o.CreationTimestamp = crd.Name, crd.Labels, crd.CreationTimestamp
	o.Annotations = releaseAnnotations(crd.Annotations)
	o.Spec.Group, o.Spec.Names, o.Spec.Scope, o.Spec.Conversion = crd.Spec.Group, crd.Spec.Names, crd.Spec.Scope, crd.Spec.Conversion
	o.Status = crd.Status
	for _, v := range crd.Spec.Versions {
		o.Spec.Versions = append(o.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated,
			DeprecationWarning: v.DeprecationWarning, Subresources: v.Subresources,
		})
	}
	return o
}

// outline is the part of a v1 CRD document that Outline keeps.
type outline struct {
	Metadata struct {
		Name              string            `json:"name"`
		Labels            map[string]string `json:"labels"`
		Annotations       map[string]string `json:"annotations"`
		CreationTimestamp metav1.Time       `json:"creationTimestamp"`
	} `json:"metadata"`
	Spec struct {
		Group      string                                        `json:"group"`
		Names      apiextensionsv1.CustomResourceDefinitionNames `json:"names"`
		Scope      apiextensionsv1.ResourceScope                 `json:"scope"`
		Conversion *apiextensionsv1.CustomResourceConversion     `json:"conversion"`
		Versions   []struct {
			Name               string                                      `json:"name"`
			Served             bool                                        `json:"served"`
			Storage            bool                                        `json:"storage"`
			Deprecated         bool                                        `json:"deprecated"`
			DeprecationWarning *string                                     `json:"deprecationWarning"`
			Subresources       *apiextensionsv1.CustomResourceSubresources `json:"subresources"`
		} `json:"versions"`
	} `json:"spec"`
	Status apiextensionsv1.CustomResourceDefinitionStatus `json:"status"`
}

func (o *outline) crd() *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	crd.Name, crd.Labels, crd.CreationTimestamp = o.Metadata.Name, o.Metadata.Labels, o.Metadata.CreationTimestamp
	crd.Annotations = releaseAnnotations(o.Metadata.Annotations)
	crd.Spec.Group, crd.Spec.Names, crd.Spec.Scope, crd.Spec.Conversion = o.Spec.Group, o.Spec.Names, o.Spec.Scope, o.Spec.Conversion
	crd.Status = o.Status
	for _, v := range o.Spec.Versions {
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated,
			DeprecationWarning: v.DeprecationWarning, Subresources: v.Subresources,
		})
	}
	return crd
}

// servable refuses a CRD whose versions the server could not serve (it
// refuses to create it): none, or not exactly one storage version.
func servable(crd *apiextensionsv1.CustomResourceDefinition, d *manifest.Document) error {
	storage := 0
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			storage++
		}
	}
	if storage == 1 {
		return nil
	}
	line, column := d.Position("spec.versions")
	return &manifest.Error{File: d.File, Line: line, Column: column, Msg: fmt.Sprintf(
		"invalid CustomResourceDefinition %q: spec.versions: must have exactly one version marked as storage version (%d of %d are)",
		crd.Name, storage, len(crd.Spec.Versions))}
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
