package policies

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
)

// CustomResourceInterfaces are what admission converts and defaults
// objects of a CRD's kind with, as the server's handler of the CRD has
// them: its versions are the same resource (a policy's rules at one
// version match a request at another with matchPolicy Equivalent), the
// structural defaults of a version (schema) are applied after a
// mutation, and versions convert as the CRD's conversion None does. A
// webhook conversion is not run here: a policy that needs it fails with
// an error that says so.
func CustomResourceInterfaces(crd *apiextensionsv1.CustomResourceDefinition, schema func(version string) *structuralschema.Structural) admission.ObjectInterfaces {
	equivalent := runtime.NewEquivalentResourceRegistry()
	for _, v := range crd.Spec.Versions {
		if !v.Served {
			continue
		}
		gvr := groupVersion(crd, v.Name).WithResource(crd.Spec.Names.Plural)
		kind := groupVersion(crd, v.Name).WithKind(crd.Spec.Names.Kind)
		equivalent.RegisterKindFor(gvr, "", kind)
	}
	c := &convertor{crd: crd}
	return &admission.RuntimeObjectInterfaces{
		ObjectCreater:            unstructuredscheme.NewUnstructuredCreator(),
		ObjectTyper:              crdserverscheme.NewUnstructuredObjectTyper(),
		ObjectDefaulter:          defaulter{schema: schema},
		ObjectConvertor:          c,
		EquivalentResourceMapper: equivalent,
	}
}

func groupVersion(crd *apiextensionsv1.CustomResourceDefinition, version string) schema.GroupVersion {
	return schema.GroupVersion{Group: crd.Spec.Group, Version: version}
}

type defaulter struct {
	schema func(version string) *structuralschema.Structural
}

func (d defaulter) Default(in runtime.Object) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return
	}
	if s := d.schema(u.GroupVersionKind().Version); s != nil {
		structuraldefaulting.Default(u.Object, s)
	}
}

// convertor converts objects of a CRD's kind between its versions.
type convertor struct {
	crd *apiextensionsv1.CustomResourceDefinition
}

func (c *convertor) Convert(in, out, _ any) error {
	from, ok := in.(*unstructured.Unstructured)
	to, ok2 := out.(*unstructured.Unstructured)
	if !ok || !ok2 {
		return fmt.Errorf("converting %T to %T: only objects of %s convert", in, out, c.crd.Name)
	}
	converted, err := c.to(from, to.GroupVersionKind().GroupVersion())
	if err != nil {
		return err
	}
	to.Object = converted.Object
	return nil
}

func (c *convertor) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("converting %T: only objects of %s convert", in, c.crd.Name)
	}
	gvk, ok := target.KindForGroupVersionKinds([]schema.GroupVersionKind{u.GroupVersionKind()})
	if !ok {
		return nil, fmt.Errorf("%s cannot be converted to %v", u.GroupVersionKind(), target)
	}
	return c.to(u, gvk.GroupVersion())
}

// to is u at version gv ("" keeps u's own).
func (c *convertor) to(u *unstructured.Unstructured, gv schema.GroupVersion) (*unstructured.Unstructured, error) {
	out := u.DeepCopy()
	if gv.Empty() || gv == u.GroupVersionKind().GroupVersion() {
		return out, nil
	}
	if c.crd.Spec.Conversion != nil && c.crd.Spec.Conversion.Strategy == apiextensionsv1.WebhookConverter {
		return nil, fmt.Errorf("%s converts through a webhook, which admission does not call on the client: name version %s in the policy's rules", c.crd.Name, u.GroupVersionKind().Version)
	}
	out.SetAPIVersion(gv.String())
	return out, nil
}

func (c *convertor) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return "", "", fmt.Errorf("field labels of %s are not converted", gvk)
}
