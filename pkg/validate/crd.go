package validate

import (
	"context"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	ctx = quiet(genericapirequest.WithNamespace(ctx, ""))
	if old == nil {
		rest.FillObjectMetaSystemFields(crd)
		res.Err = rest.BeforeCreate(crdStrategy(), ctx, crd)
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
	res.Err = rest.BeforeUpdate(crdStrategy(), ctx, crd, live)
	return res
}
