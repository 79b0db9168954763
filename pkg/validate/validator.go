package validate

import (
	"context"
	"errors"

	"github.com/go-logr/logr"
	"github.com/kubectl-crd/kubectl-crd/internal/fast"
	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"github.com/kubectl-crd/kubectl-crd/pkg/schemaproof"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/crdserverscheme"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/apiserver/pkg/storage/names"
	"k8s.io/klog/v2"
)

// Validator checks objects of one CRD version as the server checks them on
// create, with the server's own strategy (schema, metadata, embedded
// resources, list types, CEL rules), built once and used for every object.
type Validator struct {
	gvk                   schema.GroupVersionKind
	structural            *structuralschema.Structural
	preserveUnknownFields bool
	strategy              strategy
	// status is the strategy of writes through the status subresource
	// (nil without one).
	status rest.RESTUpdateStrategy
	// resource is the kind's resource at the version; admission converts
	// and defaults the kind's objects with interfaces (nil unless built
	// for admission: they keep the whole CRD).
	resource   schema.GroupVersionResource
	interfaces admission.ObjectInterfaces
}

// strategy is what the server's custom resource strategy is to creates
// and updates.
type strategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

// NewValidator builds the validator of a CRD version, for objects checked
// without admission policies. It keeps nothing of crd but what the
// version's checks need.
func NewValidator(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Validator, error) {
	return newValidator(crd, version, false)
}

// NewAdmissionValidator is NewValidator for objects that go through
// admission policies too (CreateWith, UpdateWith with a chain): it keeps
// crd, whose other versions admission converts and defaults objects to
// when a policy matches them there.
func NewAdmissionValidator(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Validator, error) {
	return newValidator(crd, version, true)
}

func newValidator(crd *apiextensionsv1.CustomResourceDefinition, version string, admitting bool) (*Validator, error) {
	props, err := internalSchema(crd, version)
	if err != nil {
		return nil, err
	}
	schemaValidator, openapiSchema, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return nil, err
	}
	if fast.Enabled() {
		// Most objects are valid: a compiled proof answers for those, the
		// server's validator for the rest (see pkg/schemaproof).
		schemaValidator = schemaproof.New(schemaValidator, openapiSchema)
	}
	s, err := structural(crd, version, props)
	if err != nil {
		return nil, err
	}
	var status *apiextensions.CustomResourceSubresourceStatus
	var scale *apiextensions.CustomResourceSubresourceScale
	if sub, _ := apihelpers.GetSubresourcesForVersion(crd, version); sub != nil {
		internal := &apiextensions.CustomResourceSubresources{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresources_To_apiextensions_CustomResourceSubresources(sub, internal, nil); err != nil {
			return nil, err
		}
		status, scale = internal.Status, internal.Scale
	}
	var selectable []apiextensionsv1.SelectableField
	if v := catalog.VersionNamed(crd, version); v != nil {
		selectable = v.SelectableFields
	}
	gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind}
	// Writes to the status subresource are checked against the status
	// schema alone, as the server builds that validator.
	var statusValidator apiservervalidation.SchemaValidator
	if status != nil && props != nil {
		if st, ok := props.Properties["status"]; ok {
			if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&st); err != nil {
				return nil, err
			}
		}
	}
	strategy := customresource.NewStrategy(crdserverscheme.NewUnstructuredObjectTyper(), crd.Spec.Scope == apiextensionsv1.NamespaceScoped, gvk,
		schemaValidator, statusValidator, s, status, scale, selectable)
	v := &Validator{gvk: gvk, structural: s, preserveUnknownFields: crd.Spec.PreserveUnknownFields, strategy: strategy,
		resource: gvk.GroupVersion().WithResource(crd.Spec.Names.Plural)}
	if admitting {
		v.interfaces = policies.CustomResourceInterfaces(crd, schemaAt(crd, version, s))
	}
	if status != nil {
		v.status = customresource.NewStatusStrategy(strategy)
	}
	return v, nil
}

// Create checks obj (not changed) as the server checks a create: in the
// object's namespace, or else namespace ("default" when "") for namespaced
// kinds.
func (v *Validator) Create(ctx context.Context, obj map[string]any, namespace string) Result {
	return v.create(ctx, runtime.DeepCopyJSON(obj), namespace, nil)
}

// CreateWith is Create through the admission policies of chain (none
// when nil), as kubectl crd test runs cases with --policies.
func (v *Validator) CreateWith(ctx context.Context, obj map[string]any, namespace string, chain *policies.Chain) Result {
	return v.create(ctx, runtime.DeepCopyJSON(obj), namespace, chain)
}

// create is Create on an object the caller gives up, with the admission
// policies of chain (none when nil): obj becomes the object as the server
// would store it.
func (v *Validator) create(ctx context.Context, obj map[string]any, namespace string, chain *policies.Chain) Result {
	if chain != nil && v.interfaces == nil {
		return Result{Err: errNotForAdmission}
	}
	u := &unstructured.Unstructured{Object: obj}
	unknown, err := decodeBody(u.Object, v.structural, v.preserveUnknownFields)
	if err != nil {
		return Result{Err: err}
	}
	res := Result{Unknown: unknown}
	if v.strategy.NamespaceScoped() {
		namespace = builtin.NamespaceOr(u.GetNamespace(), namespace)
	}
	builtin.RequestManagedFields(u, nil)
	ctx, warnings := builtin.RecordWarnings(quiet(genericapirequest.WithNamespace(ctx, namespace)))
	rest.FillObjectMetaSystemFields(u)
	request := policies.Request{Object: u, Kind: v.gvk, Resource: v.resource, Namespace: namespace, Name: u.GetName(),
		Operation: admission.Create, Options: &metav1.CreateOptions{}, Interfaces: v.interfaces}
	res.Admitted, res.Err = chain.Admit(ctx, request, func() error {
		if u.GetName() == "" && u.GetGenerateName() != "" {
			u.SetName(names.SimpleNameGenerator.GenerateName(u.GetGenerateName()))
		}
		return rest.BeforeCreate(v.strategy, ctx, u)
	})
	res.Object, res.Warnings = u.Object, warnings.List()
	return res
}

// Update checks obj (not changed) as the server checks an update (a
// replace) of old, the live object: the new object is pruned and defaulted,
// old is defaulted as storage reads it, status comes from old where the
// status subresource is on, and the schema and CEL rules run with oldSelf
// and validation ratcheting.
func (v *Validator) Update(ctx context.Context, obj, old map[string]any) Result {
	return v.update(ctx, runtime.DeepCopyJSON(obj), old, nil, nil)
}

// UpdateWith is Update (a PUT) through the admission policies of chain
// (none when nil).
func (v *Validator) UpdateWith(ctx context.Context, obj, old map[string]any, chain *policies.Chain) Result {
	return v.update(ctx, runtime.DeepCopyJSON(obj), old, chain, nil)
}

// update is Update on a new object the caller gives up (old is not
// changed), with the admission policies of chain (none when nil); opts
// are the request's options (nil: a PUT's).
func (v *Validator) update(ctx context.Context, obj, old map[string]any, chain *policies.Chain, opts runtime.Object) Result {
	if chain != nil && v.interfaces == nil {
		return Result{Err: errNotForAdmission}
	}
	u := &unstructured.Unstructured{Object: obj}
	unknown, err := decodeBody(u.Object, v.structural, v.preserveUnknownFields)
	if err != nil {
		return Result{Err: err}
	}
	res := Result{Unknown: unknown}
	o := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(old)}
	PruneAndDefault(o.Object, v.structural, v.preserveUnknownFields)
	namespace := ""
	if v.strategy.NamespaceScoped() {
		namespace = o.GetNamespace()
	}
	builtin.RequestManagedFields(u, o)
	if o.GetResourceVersion() == "" {
		o.SetResourceVersion("1") // an old object from a file
	}
	if u.GetResourceVersion() == "" {
		// Applying a file updates whatever version is live.
		u.SetResourceVersion(o.GetResourceVersion())
	}
	ctx, warnings := builtin.RecordWarnings(quiet(genericapirequest.WithNamespace(ctx, namespace)))
	if opts == nil {
		opts = &metav1.UpdateOptions{}
	}
	request := policies.Request{Object: u, Old: o, Kind: v.gvk, Resource: v.resource, Namespace: namespace, Name: o.GetName(),
		Operation: admission.Update, Options: opts, Interfaces: v.interfaces}
	res.Admitted, res.Err = chain.Admit(ctx, request, func() error { return rest.BeforeUpdate(v.strategy, ctx, u, o) })
	res.Object, res.Warnings = u.Object, warnings.List()
	return res
}

// schemaAt gives the structural schema of each version of crd, s for
// version: what admission defaults a mutated object with.
func schemaAt(crd *apiextensionsv1.CustomResourceDefinition, version string, s *structuralschema.Structural) func(string) *structuralschema.Structural {
	return func(v string) *structuralschema.Structural {
		if v == version {
			return s
		}
		other, err := Structural(crd, v)
		if err != nil {
			return nil
		}
		return other
	}
}

// errNotForAdmission: policies given to a validator NewValidator built
// (a mistake of the caller's, not the user's).
var errNotForAdmission = errors.New("validate: admission policies given to a validator built without them (use NewAdmissionValidator)")

// quiet keeps the server's request logging (such as its note on duplicate
// validation errors, which are reported anyway) out of the user's output.
func quiet(ctx context.Context) context.Context {
	return klog.NewContext(ctx, logr.Discard())
}
