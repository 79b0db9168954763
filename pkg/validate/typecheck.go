package validate

import (
	"context"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/openapi"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsscheme "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/scheme"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	openapiclient "k8s.io/client-go/openapi"
	"k8s.io/kube-openapi/pkg/validation/spec"
	generatedopenapi "k8s.io/kubernetes/pkg/generated/openapi"
)

// TypeWarnings type-checks a ValidatingAdmissionPolicy (obj, as the
// server stores it) as the server does to write its status.typeChecking:
// each expression against the schema of each kind its rules name at an
// explicit version (built in, or defined by a CRD of cat), with the
// server's own type checker. Each warning names the expression's field
// (spec.validations[0].expression).
func TypeWarnings(ctx context.Context, obj map[string]any, kinds *builtin.Kinds, cat *catalog.Catalog) ([]admissionregistrationv1.ExpressionWarning, error) {
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, policy); err != nil {
		return nil, err
	}
	checker := &validating.TypeChecker{
		SchemaResolver: builtinSchemas().Combine(crdSchemas{ctx: ctx, cat: cat}),
		RestMapper:     policies.NewMapper(resourceOf(ctx, kinds, cat), kindsOf(ctx, kinds, cat)),
	}
	return checker.Check(policy), nil
}

// builtinSchemas resolves the schemas of kube-apiserver's own kinds from
// the definitions it is built with, as kube-controller-manager's type
// checker (which writes status.typeChecking) does.
var builtinSchemas = sync.OnceValue(func() *resolver.DefinitionsSchemaResolver {
	return resolver.NewDefinitionsSchemaResolver(generatedopenapi.GetOpenAPIDefinitions, clientgoscheme.Scheme, apiextensionsscheme.Scheme)
})

// crdSchemas resolves the schema of a kind a CRD of cat defines, from the
// OpenAPI document the server publishes for it.
type crdSchemas struct {
	ctx context.Context
	cat *catalog.Catalog
}

func (c crdSchemas) ResolveSchema(gvk schema.GroupVersionKind) (*spec.Schema, error) {
	if c.cat == nil {
		return nil, resolver.ErrSchemaNotFound
	}
	crd, err := c.cat.ForKind(c.ctx, gvk.GroupKind())
	if err != nil {
		return nil, err
	}
	if crd == nil {
		return nil, resolver.ErrSchemaNotFound
	}
	client := openapi.NewClient([]*apiextensionsv1.CustomResourceDefinition{crd.CustomResourceDefinition})
	return (&resolver.ClientDiscoveryResolver{Discovery: openapiOnly{client: client}}).ResolveSchema(gvk)
}

// openapiOnly is the discovery of the /openapi/v3 documents alone: all
// the resolver reads.
type openapiOnly struct {
	discovery.DiscoveryInterface
	client openapiclient.Client
}

func (o openapiOnly) OpenAPIV3() openapiclient.Client { return o.client }
