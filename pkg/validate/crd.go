package validate

import (
	"context"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	sigsjson "sigs.k8s.io/json"
)

// crdStrategy is the server's strategy for CRDs.
var crdStrategy = sync.OnceValue(func() strategy {
	return customresourcedefinition.NewStrategy(catalog.Scheme())
})

// CRD checks a CustomResourceDefinition document as the server checks a
// create of it, or, with old (the CRD as the cluster keeps it), an update
// of old: unknown fields (strict decoding), then the defaulted object
// through the server's own CRD strategy (structural schema rules, CEL
// compilation and cost budget, printer column JSONPaths, selectable
// fields, names; on update also the versions still stored, immutable
// fields, and the ratcheting of what old already had).
func CRD(ctx context.Context, doc []byte, old *apiextensionsv1.CustomResourceDefinition) Result {
	return admittedCRD(ctx, doc, old, nil, nil)
}

// admittedCRD is CRD with the admission policies of chain (none when
// nil); opts are the request's options (nil: a create's or a PUT's).
func admittedCRD(ctx context.Context, doc []byte, old *apiextensionsv1.CustomResourceDefinition, chain *policies.Chain, opts runtime.Object) Result {
	var res Result
	// The version's own Go type knows every field the server accepts.
	var probe struct {
		APIVersion string `json:"apiVersion"`
	}
	_ = sigsjson.UnmarshalCaseSensitivePreserveInts(doc, &probe)
	crd, err := catalog.DecodeInternal(doc)
	if err != nil {
		res.Err = err
		return res
	}
	if obj, err := catalog.Scheme().New(schema.FromAPIVersionAndKind(probe.APIVersion, "CustomResourceDefinition")); err == nil {
		strict, _ := sigsjson.UnmarshalStrict(doc, obj)
		for _, e := range strict {
			if path, ok := builtin.UnknownField(e); ok {
				res.Unknown = append(res.Unknown, path)
			}
		}
	}
	ctx, warnings := builtin.RecordWarnings(quiet(genericapirequest.WithNamespace(ctx, "")))
	request := policies.Request{Object: crd, Kind: schema.FromAPIVersionAndKind(probe.APIVersion, "CustomResourceDefinition"),
		Resource: schema.GroupVersion{Group: apiextensions.GroupName, Version: schema.FromAPIVersionAndKind(probe.APIVersion, "").Version}.WithResource("customresourcedefinitions"),
		Name:     crd.Name, Interfaces: admission.NewObjectInterfacesFromScheme(catalog.Scheme())}
	if old == nil {
		rest.FillObjectMetaSystemFields(crd)
		request.Operation, request.Options = admission.Create, &metav1.CreateOptions{}
		res.Admitted, res.Err = chain.Admit(ctx, request, func() error { return rest.BeforeCreate(crdStrategy(), ctx, crd) })
		res.Warnings = warnings.List()
		return res
	}
	live := &apiextensions.CustomResourceDefinition{}
	if err := catalog.Scheme().Convert(old, live, nil); err != nil {
		res.Err = err
		return res
	}
	if crd.ResourceVersion == "" {
		// Applying a file updates whatever version is live.
		crd.ResourceVersion = live.ResourceVersion
	}
	if opts == nil {
		opts = &metav1.UpdateOptions{}
	}
	request.Old, request.Operation, request.Options = live, admission.Update, opts
	res.Admitted, res.Err = chain.Admit(ctx, request, func() error { return rest.BeforeUpdate(crdStrategy(), ctx, crd, live) })
	res.Warnings = warnings.List()
	return res
}

// checkCRD checks a CustomResourceDefinition document: as a create, or,
// when the cluster (or --old) has a CRD of its name, an apply over it (a
// replace with --replace).
func (c *checker) checkCRD(ctx context.Context, d *manifest.Document, res *ObjectResult) {
	opts := c.opts
	var old *apiextensionsv1.CustomResourceDefinition
	if opts.OldCRD != nil && res.Name != "" {
		var err error
		if old, err = opts.OldCRD(ctx, res.Name); err != nil {
			res.fail(err.Error())
			return
		}
	}
	switch {
	case old == nil:
		res.report(d, admittedCRD(ctx, d.JSON, nil, opts.Admission, nil), opts)
	case opts.Replace:
		res.Operation = "replace"
		res.report(d, admittedCRD(ctx, d.JSON, old, opts.Admission, nil), opts)
	default:
		res.Operation = "update"
		res.report(d, appliedCRD(ctx, d.JSON, old, opts.Admission), opts)
	}
}
