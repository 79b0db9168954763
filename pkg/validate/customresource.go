package validate

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// checkCustom checks a custom resource: against the CRD that defines its
// kind, as a create or, when it exists, an update.
func (c *checker) checkCustom(ctx context.Context, d *manifest.Document, res *ObjectResult, obj *unstructured.Unstructured) {
	opts := c.optsFor(d)
	gvk := obj.GroupVersionKind()
	found, err := c.crdFor(ctx, gvk.GroupKind(), d)
	if err != nil {
		res.fail(err.Error())
		return
	}
	if found == nil {
		c.noCRD(ctx, d, res, obj)
		return
	}
	crd := found.CustomResourceDefinition
	if !apihelpers.HasServedCRDVersion(crd, gvk.Version) {
		res.refuse(d, Problem{Field: "apiVersion", Type: "FieldValueNotSupported", Message: catalog.NotServed(found.CRD, gvk.Version)})
		return
	}
	if version := catalog.VersionNamed(crd, gvk.Version); version.Deprecated {
		res.warn(d, Problem{Field: "apiVersion", Type: "Deprecated", Message: catalog.DeprecationWarning(crd, version)})
	}
	v, err := c.validatorFor(ctx, gvk, found)
	if err != nil {
		res.fail(err.Error())
		return
	}
	old, err := opts.old(ctx, gvk, gvk.GroupVersion().WithResource(crd.Spec.Names.Plural), crd.Spec.Scope == apiextensionsv1.NamespaceScoped, obj)
	if err != nil {
		res.fail(err.Error())
		return
	}
	var out Result
	switch {
	case old != nil && opts.Replace:
		res.Operation = "replace"
		out = v.update(ctx, obj.Object, old, opts.Admission, nil)
	case old != nil:
		res.Operation = "update"
		out = applied(ctx, v, d.JSON, old, opts.Keep, opts.Admission)
	default:
		out = v.create(ctx, obj.Object, opts.Namespace, opts.Admission)
	}
	res.report(d, out, opts)
}

// noCRD fills the result of an object whose kind no CRD defines: invalid
// when CRDs here define other kinds of its group (a misspelt kind: the
// server has no match for it), with the closest; else uncheckable.
func (c *checker) noCRD(ctx context.Context, d *manifest.Document, res *ObjectResult, obj *unstructured.Unstructured) {
	gvk := obj.GroupVersionKind()
	kinds, err := c.groups.Get(gvk.Group, func() ([]string, error) {
		c.lookups.Lock()
		defer c.lookups.Unlock()
		return c.kinds.KindsInGroup(ctx, gvk.Group)
	})
	if err != nil {
		res.fail(err.Error())
		return
	}
	if len(kinds) == 0 {
		c.uncheckable(d, res, obj, fmt.Sprintf("no CustomResourceDefinition for %s", gvk.GroupKind()))
		return
	}
	msg := fmt.Sprintf("no matches for kind %q in version %q", gvk.Kind, gvk.GroupVersion())
	if close := catalog.Closest(gvk.Kind, kinds); len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, " or ") + "?"
	} else {
		msg += fmt.Sprintf(" (the CustomResourceDefinitions of %s define %s)", gvk.Group, strings.Join(kinds, ", "))
	}
	res.refuse(d, Problem{Field: "kind", Type: "FieldValueNotSupported", Message: msg})
}

// uncheckable fills the result of an object of a kind kubectl crd cannot
// check as the server does, for reason: checked against the schema the
// cluster publishes for the kind when it publishes one, else unchecked.
func (c *checker) uncheckable(d *manifest.Document, res *ObjectResult, obj *unstructured.Unstructured, reason string) {
	p, err := c.publishedFor(obj.GroupVersionKind(), d)
	switch {
	case err != nil:
		res.fail(err.Error())
	case p != nil:
		res.checkPublished(d, p, obj, c.opts)
	default:
		res.unchecked(d, reason, c.opts)
	}
}
