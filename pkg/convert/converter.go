// Package convert converts custom resources between the versions of their
// CRD as kube-apiserver does: with the server's own converter (None, or
// the conversion webhook, its ConversionReview and every check of the
// answer: apiextensions-apiserver's conversion.NewCRConverterFactory), then
// what the server's storage codec does to a converted object (metadata
// coerced, fields the version's schema lacks pruned, defaults applied where
// the codec applies them). It also finds what a round trip between
// versions loses, and which stored objects a cluster cannot convert.
package convert

import (
	"encoding/json"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Converter converts the objects of one CRD between its versions.
type Converter struct {
	crd     *apiextensionsv1.CustomResourceDefinition
	gk      schema.GroupKind
	storage string
	// convertor is the server's safe converter for the CRD (it copies
	// its input).
	convertor runtime.ObjectConvertor
	schemas   map[string]*structuralschema.Structural // by version; nil: no schema
	// unreachable, when set, is why the webhook cannot be called from
	// here (a service without --webhook-url): every conversion that needs
	// the webhook fails with it, before anything is sent.
	unreachable error
}

// New makes the converter of a CRD. For a Webhook CRD, wh says how to
// reach the webhook from this machine.
func New(crd *apiextensionsv1.CustomResourceDefinition, wh Webhook) (*Converter, error) {
	storage, err := apihelpers.GetCRDStorageVersion(crd)
	if err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s: %w", crd.Name, err)
	}
	c := &Converter{crd: crd, gk: schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind},
		storage: storage, schemas: map[string]*structuralschema.Structural{}}
	for _, v := range crd.Spec.Versions {
		if c.schemas[v.Name], err = validate.Structural(crd, v.Name); err != nil {
			return nil, err
		}
	}
	target := crd
	if crd.Spec.Conversion == nil {
		// What the server's defaulting does to a CRD that does not say.
		target = crd.DeepCopy()
		target.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
	}
	services := &serviceAddress{}
	if target.Spec.Conversion.Strategy == apiextensionsv1.WebhookConverter {
		t, err := wh.target(target)
		if err != nil {
			return nil, err
		}
		target, services, c.unreachable = t.crd, t.services, t.unreachable
	}
	factory, err := conversion.NewCRConverterFactory(services, wh.wrapper())
	if err != nil {
		return nil, err
	}
	if c.convertor, _, err = factory.NewConverter(target); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s: %w", crd.Name, err)
	}
	return c, nil
}

// CRD is the CRD the converter converts for.
func (c *Converter) CRD() *apiextensionsv1.CustomResourceDefinition { return c.crd }

// StorageVersion is the version the CRD's objects are stored at.
func (c *Converter) StorageVersion() string { return c.storage }

// Unreachable says why the CRD's webhook cannot be called from here (a
// service, and no Webhook.URL), or nil.
func (c *Converter) Unreachable() error { return c.unreachable }

// Convertor is the server's converter of the CRD (field labels included),
// without the codec's coercion.
func (c *Converter) Convertor() runtime.ObjectConvertor { return c.convertor }

// Read is what the server returns for obj when a client creates (or
// replaces) it at its own version and then reads it at version: the
// request decoded at the object's version (unknown fields pruned,
// metadata coerced, defaults applied), converted to the storage version
// and stored, decoded from storage (coerced, defaulted at the storage
// version), and converted to version. Each conversion is the server's
// (a Webhook CRD's webhook is called for each one that changes the
// version). The object is not validated (validate does that), and its
// status is kept as if it were written through the status subresource
// too. obj is not changed.
func (c *Converter) Read(obj *unstructured.Unstructured, version string) (*unstructured.Unstructured, error) {
	in, err := c.Decoded(obj)
	if err != nil {
		return nil, err
	}
	stored, err := c.Hop(in, c.storage)
	if err != nil {
		return nil, err
	}
	if stored, err = c.fromStorage(stored); err != nil {
		return nil, err
	}
	return c.Hop(stored, version)
}

// Decoded is obj as the server decodes it from a request at its own
// version: fields the version's schema lacks pruned, metadata coerced,
// defaults applied. obj is not changed.
func (c *Converter) Decoded(obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if err := c.knows(obj.GroupVersionKind()); err != nil {
		return nil, err
	}
	u := obj.DeepCopy()
	if err := c.coerce(u, false); err != nil {
		return nil, err
	}
	structuraldefaulting.Default(u.Object, c.schemas[u.GroupVersionKind().Version])
	return u, nil
}

// Hop converts obj to version with the server's converter, then coerces
// the result as the server's codec does (metadata, and the fields the
// target version's schema lacks pruned). An object already at version is
// not sent to a webhook. obj is not changed.
func (c *Converter) Hop(obj *unstructured.Unstructured, version string) (*unstructured.Unstructured, error) {
	from := obj.GroupVersionKind()
	if err := c.knows(from); err != nil {
		return nil, err
	}
	if from.Version != version && c.unreachable != nil {
		return nil, c.unreachable
	}
	out, err := c.convertor.ConvertToVersion(obj, schema.GroupVersion{Group: c.gk.Group, Version: version})
	if err != nil {
		return nil, err
	}
	u, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("the converter returned %T", out)
	}
	if u == obj { // not converted, handed back as it was
		u = obj.DeepCopy()
	}
	if err := c.coerce(u, false); err != nil {
		return nil, err
	}
	return u, nil
}

// fromStorage is an object written to storage, as the server reads it
// back: encoded and decoded as JSON, coerced (metadata that does not
// decode dropped), defaulted at the storage version.
func (c *Converter) fromStorage(obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	data, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	if err := c.coerce(u, true); err != nil {
		return nil, err
	}
	structuraldefaulting.Default(u.Object, c.schemas[u.GroupVersionKind().Version])
	return u, nil
}

// knows checks that gvk is one of the CRD's versions of its kind, as the
// server's converter does before it converts.
func (c *Converter) knows(gvk schema.GroupVersionKind) error {
	if gvk.GroupKind() != c.gk {
		return fmt.Errorf("%s is not a %s", gvk.GroupKind(), c.gk)
	}
	if catalog.VersionNamed(c.crd, gvk.Version) == nil {
		return &UnknownVersionError{CRD: c.crd.Name, Version: gvk.Version, Versions: Versions(c.crd, false)}
	}
	return nil
}

// coerce does to an object of the CRD what the server's codec does to
// every object it decodes or converts (apiextensions-apiserver's
// unstructuredSchemaCoercer, which is not exported: the same library
// calls in the same order): metadata decoded as ObjectMeta and written
// back, fields the object's version's schema lacks pruned, nulls the
// schema does not allow dropped, metadata of embedded resources coerced.
// dropInvalid is the storage decoder's leniency: metadata fields that do
// not decode are dropped instead of failing.
func (c *Converter) coerce(u *unstructured.Unstructured, dropInvalid bool) error {
	kind, foundKind, err := unstructured.NestedString(u.Object, "kind")
	if err != nil {
		return err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(u.Object, "apiVersion")
	if err != nil {
		return err
	}
	meta, foundMeta, _, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{DropMalformedFields: dropInvalid})
	if err != nil {
		return err
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return err
	}
	if gv.Group == c.gk.Group && kind == c.gk.Kind {
		s := c.schemas[gv.Version]
		if !c.crd.Spec.PreserveUnknownFields {
			structuralpruning.PruneWithOptions(u.Object, s, true, structuralschema.UnknownFieldPathOptions{})
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, s)
		}
		if ferr, _ := schemaobjectmeta.CoerceWithOptions(nil, u.Object, s, false, schemaobjectmeta.CoerceOptions{DropInvalidFields: dropInvalid}); ferr != nil {
			return ferr
		}
	}
	if foundKind {
		u.SetKind(kind)
	}
	if foundAPIVersion {
		u.SetAPIVersion(apiVersion)
	}
	if foundMeta {
		return schemaobjectmeta.SetObjectMeta(u.Object, meta)
	}
	return nil
}

// UnknownVersionError is an object, or a version asked for, that the CRD
// does not list.
type UnknownVersionError struct {
	CRD, Version string
	Versions     []string
}

func (e *UnknownVersionError) Error() string {
	return fmt.Sprintf("CustomResourceDefinition %s has no version %q (its versions: %v)", e.CRD, e.Version, e.Versions)
}

// Versions are the CRD's versions (only the served ones when served is
// set), in the CRD's order.
func Versions(crd *apiextensionsv1.CustomResourceDefinition, served bool) []string {
	var out []string
	for _, v := range crd.Spec.Versions {
		if v.Served || !served {
			out = append(out, v.Name)
		}
	}
	return out
}
