package catalog

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/discovery"
)

var (
	crdScheme  = runtime.NewScheme()
	crdDecoder runtime.Decoder
)

func init() {
	apiextensionsinstall.Install(crdScheme)
	// The universal decoder defaults (per version) and converts to the
	// internal type, as the server does on create; from there to v1.
	crdDecoder = serializer.NewCodecFactory(crdScheme).UniversalDecoder()
}

// Scheme is the scheme of the apiextensions types, every version and the
// internal one, as the server installs it.
func Scheme() *runtime.Scheme { return crdScheme }

// DecodeInternal decodes a CRD document of any version, defaulted, into the
// internal type, as the server does on create.
func DecodeInternal(data []byte) (*apiextensions.CustomResourceDefinition, error) {
	obj, _, err := crdDecoder.Decode(data, nil, nil)
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
func DecodeCRD(doc manifest.Document) (*CRD, error) {
	fail := func(err error) error {
		return &manifest.Error{File: doc.File, Line: doc.Line, Column: doc.Column,
			Msg: "invalid CustomResourceDefinition: " + err.Error()}
	}
	internal, err := DecodeInternal(doc.JSON)
	if err != nil {
		return nil, fail(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := crdScheme.Convert(internal, crd, nil); err != nil {
		return nil, fail(err)
	}
	crd.APIVersion, crd.Kind = apiextensionsv1.SchemeGroupVersion.String(), "CustomResourceDefinition"
	return &CRD{CustomResourceDefinition: crd, Origin: fmt.Sprintf("%s:%d", doc.File, doc.Line)}, nil
}

// Files is a Source over CRDs read from local files.
type Files struct {
	crds      []*CRD
	byName    map[string]*CRD
	discovery *memoryDiscovery
}

// ReadFiles reads the CRDs in paths (files or directories, read
// recursively; "-" for stdin). Documents of other kinds are ignored. The same
// CRD name defined twice is an error naming both places.
func ReadFiles(paths []string, stdin io.Reader) (*Files, error) {
	docs, err := manifest.ReadPaths(paths, true, stdin)
	if err != nil {
		return nil, err
	}
	var crds []*CRD
	for _, d := range docs {
		if !IsCRD(d.TypeMeta()) {
			continue
		}
		crd, err := DecodeCRD(d)
		if err != nil {
			return nil, err
		}
		if err := servable(crd, &d); err != nil {
			return nil, err
		}
		crds = append(crds, crd)
	}
	return NewFiles(crds)
}

// servable refuses a CRD whose versions the server could not serve (it
// refuses to create it): none, or not exactly one storage version.
func servable(crd *CRD, d *manifest.Document) error {
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

// NewFiles makes a Source of CRDs already read.
func NewFiles(crds []*CRD) (*Files, error) {
	f := &Files{byName: map[string]*CRD{}}
	for _, crd := range crds {
		if first, dup := f.byName[crd.Name]; dup {
			return nil, fmt.Errorf("CustomResourceDefinition %q is defined twice: at %s and at %s", crd.Name, first.Origin, crd.Origin)
		}
		f.byName[crd.Name] = crd
		f.crds = append(f.crds, crd)
	}
	sort.SliceStable(f.crds, func(i, j int) bool { return f.crds[i].Name < f.crds[j].Name })
	f.discovery = newMemoryDiscovery(Definitions(f.crds))
	return f, nil
}

func (f *Files) Discovery() discovery.CachedDiscoveryInterface { return f.discovery }

func (f *Files) Get(_ context.Context, name string) (*CRD, error) {
	if crd, ok := f.byName[name]; ok {
		return crd, nil
	}
	return nil, apierrors.NewNotFound(apiextensionsv1.Resource("customresourcedefinitions"), name)
}

func (f *Files) List(context.Context) ([]*CRD, error) { return f.crds, nil }
