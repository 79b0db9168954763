package catalog

import (
	"fmt"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
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
