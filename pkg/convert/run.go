package convert

import (
	"context"
	"errors"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/util/version"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/dynamic"
)

// Conversion converts the objects of one run of kubectl crd convert, with one
// converter per CRD. A problem with one object is reported on Errors with
// its place and the run goes on; Code keeps the exit code: 2 for objects
// that cannot be converted at all (no CRD, an unknown version), 1 for
// failed conversions and round trips that change an object.
type Conversion struct {
	Catalog *catalog.Catalog
	Webhook Webhook
	// OutputVersion is where objects go: GROUP/VERSION, VERSION, or ""
	// for each CRD's preferred version.
	OutputVersion string
	// Format: yaml or json for converted objects, text or json for
	// round trips ("": yaml, text).
	Format      string
	Out, Errors io.Writer
	// KubernetesVersion is the version converted objects are checked as
	// (said with the round trips' summary).
	KubernetesVersion *version.Version

	Code       int
	converters map[string]*Converter
	// unreachable: the CRDs whose webhook was said to be out of reach.
	unreachable map[string]bool
}

// fail reports a problem with one object on Errors, with its place. That
// a webhook cannot be reached from here is said in full once per CRD.
func (r *Conversion) fail(code int, d *manifest.Document, obj *unstructured.Unstructured, err error) {
	what := ""
	if obj != nil {
		what = obj.GetKind() + " " + objectName(obj) + ": "
	}
	var unreachable *UnreachableServiceError
	if errors.As(err, &unreachable) {
		if r.unreachable[unreachable.CRD] {
			err = fmt.Errorf("the conversion webhook of %s cannot be reached from here (see above)", unreachable.CRD)
		}
		r.unreachable[unreachable.CRD] = true
	}
	fmt.Fprintf(r.Errors, "%s: %s%v\n", d.Pos(), what, err)
	r.Code = max(r.Code, code)
}

// object decodes a document's object and finds its converter; a problem
// is reported and no converter returned.
func (r *Conversion) object(ctx context.Context, d *manifest.Document) (*unstructured.Unstructured, *Converter) {
	if r.converters == nil {
		r.converters, r.unreachable = map[string]*Converter{}, map[string]bool{}
	}
	obj, err := d.TakeObject()
	if err != nil {
		r.fail(2, d, nil, err)
		return nil, nil
	}
	u := &unstructured.Unstructured{Object: obj}
	return u, r.converterFor(ctx, d, u)
}

// converterFor finds the CRD of an object and its converter; a problem
// is reported (exit 2) and nil returned.
func (r *Conversion) converterFor(ctx context.Context, d *manifest.Document, obj *unstructured.Unstructured) *Converter {
	gvk := obj.GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		r.fail(2, d, nil, errors.New("not an object: apiVersion and kind are required"))
		return nil
	}
	crd, err := r.Catalog.ForKind(ctx, gvk.GroupKind())
	switch {
	case err != nil:
		r.fail(2, d, obj, err)
		return nil
	case crd == nil:
		r.fail(2, d, obj, fmt.Errorf("no CustomResourceDefinition defines %s (convert converts custom resources; kubectl convert converts built-in kinds)", gvk.GroupKind()))
		return nil
	}
	c := r.converters[crd.Name]
	if c == nil {
		if c, err = New(crd.CustomResourceDefinition, r.Webhook); err != nil {
			r.fail(2, d, obj, err)
			return nil
		}
		r.converters[crd.Name] = c
	}
	if catalog.VersionNamed(crd.CustomResourceDefinition, gvk.Version) == nil {
		r.fail(2, d, obj, &UnknownVersionError{CRD: crd.Name, Version: gvk.Version, Versions: Versions(crd.CustomResourceDefinition, false)})
		return nil
	}
	return c
}

// targetVersion is the version an object of crd goes to: OutputVersion,
// or else the version discovery prefers among the CRD's served ones.
func (r *Conversion) targetVersion(crd *apiextensionsv1.CustomResourceDefinition) (string, error) {
	version := r.OutputVersion
	if version == "" {
		version = catalog.PreferredVersion(crd)
	} else if gv, err := schema.ParseGroupVersion(version); err == nil && gv.Group != "" {
		if gv.Group != crd.Spec.Group {
			return "", fmt.Errorf("--output-version %s is not in the group %s of %s", r.OutputVersion, crd.Spec.Group, crd.Name)
		}
		version = gv.Version
	}
	if v := catalog.VersionNamed(crd, version); v == nil || !v.Served {
		return "", fmt.Errorf("CustomResourceDefinition %s serves no version %q (it serves %v)", crd.Name, version, Versions(crd, true))
	}
	return version, nil
}

// Files converts the objects of an input (its documents but its CRDs),
// or round-trips them; Catalog holds the input's own CRDs
// (validate.NewPipeline puts them there).
func (r *Conversion) Files(ctx context.Context, objects []*manifest.Document, roundTrip bool) error {
	if len(objects) == 0 {
		return errors.New("no objects to convert in the input")
	}
	if roundTrip {
		return r.RoundTrips(ctx, objects)
	}
	return r.Convert(ctx, objects)
}

// Convert converts each object and prints those converted: one as itself,
// several as a List, as kubectl convert prints them.
func (r *Conversion) Convert(ctx context.Context, docs []*manifest.Document) error {
	var out []runtime.Object
	for _, d := range docs {
		u, c := r.object(ctx, d)
		if c == nil {
			continue
		}
		version, err := r.targetVersion(c.CRD())
		if err != nil {
			r.fail(2, d, u, err)
			continue
		}
		converted, err := c.Read(u, version)
		if err != nil {
			r.fail(1, d, u, err)
			continue
		}
		out = append(out, converted)
	}
	if len(out) == 0 {
		return nil
	}
	var p printers.ResourcePrinter = &printers.YAMLPrinter{}
	if r.Format == "json" {
		p = &printers.JSONPrinter{}
	}
	if len(out) == 1 {
		return p.PrintObj(out[0], r.Out)
	}
	items := make([]any, len(out))
	for i, o := range out {
		items[i] = o.(*unstructured.Unstructured).Object
	}
	list := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""},
	}}
	return p.PrintObj(list, r.Out)
}

// RoundTrips converts each object to every other served version and back,
// and reports what changes.
func (r *Conversion) RoundTrips(ctx context.Context, docs []*manifest.Document) error {
	reports := []ObjectTrips{}
	for _, d := range docs {
		u, c := r.object(ctx, d)
		if c == nil {
			continue
		}
		if err := c.Unreachable(); err != nil {
			r.fail(2, d, u, err)
			continue
		}
		trips, err := c.RoundTrips(u)
		if err != nil {
			r.fail(1, d, u, err)
			continue
		}
		rep := NewObjectTrips(d.File, d.Line, u.GetKind(), u.GetNamespace(), u.GetName(), u.GroupVersionKind().Version, trips, d.Position)
		if rep.Status != "unchanged" {
			r.Code = max(r.Code, 1)
		}
		reports = append(reports, rep)
	}
	if r.Format == "json" {
		return report.WriteJSON(r.Out, reports)
	}
	return WriteTrips(r.Out, reports, r.KubernetesVersion)
}

// CheckStored reads the stored objects of each resource (the CRDs of
// resolved TYPEs) at every served version through the cluster, the
// storage version first, and prints what could not be read; the run's
// Code is 1 when some object could not, or not all were found.
func (r *Conversion) CheckStored(ctx context.Context, client dynamic.Interface, resources []catalog.Resource, opts StoredOptions) error {
	var results []*Stored
	for _, rs := range resources {
		if rs.CRD == nil {
			return fmt.Errorf("%s is not defined by a CustomResourceDefinition", rs.Mapping.Resource.GroupResource())
		}
		crd := rs.CRD.CustomResourceDefinition
		storage, err := apihelpers.GetCRDStorageVersion(crd)
		if err != nil {
			return err
		}
		o := opts
		o.Versions = []string{storage}
		for _, v := range Versions(crd, true) {
			if v != storage {
				o.Versions = append(o.Versions, v)
			}
		}
		s, err := CheckStored(ctx, client, crd, o)
		if err != nil {
			return fmt.Errorf("%s: %w", crd.Name, err)
		}
		if len(s.Failures) > 0 || s.Incomplete != "" {
			r.Code = max(r.Code, 1)
		}
		results = append(results, s)
	}
	if r.Format == "json" {
		var doc any = results
		if len(results) == 1 {
			doc = results[0]
		}
		return report.WriteJSON(r.Out, doc)
	}
	return WriteStored(r.Out, results)
}

// objectName is namespace/name, or name.
func objectName(o *unstructured.Unstructured) string {
	name := o.GetName()
	if name == "" {
		name = o.GetGenerateName() + "*"
	}
	if ns := o.GetNamespace(); ns != "" {
		return ns + "/" + name
	}
	return name
}
