package validate

import (
	"errors"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
)

// SchemaOnly is the type of the warning on an object checked against its
// published OpenAPI schema only.
const SchemaOnly = "SchemaOnly"

// published is a kind's schema as the cluster publishes it, resolved
// (nil: the cluster publishes none).
type published struct {
	validator apiservervalidation.SchemaValidator
}

// publishedFor finds the schema the cluster publishes for a kind that no
// CRD defines and kube-apiserver does not check itself (an aggregated API,
// a kind newer than kubectl crd): nil when there is none, or no cluster.
func (c *checker) publishedFor(gvk schema.GroupVersionKind, d *manifest.Document) (*published, error) {
	if c.opts.Published == nil {
		return nil, nil
	}
	return c.published.Get(gvk, func() (*published, error) {
		c.lookups.Lock()
		defer c.lookups.Unlock()
		s, err := c.opts.Published.ResolveSchema(gvk)
		switch {
		case errors.Is(err, resolver.ErrSchemaNotFound):
			return nil, nil
		case err != nil:
			return nil, c.fail(fmt.Errorf("reading the cluster's OpenAPI schema of %s (at %s): %w", gvk, d.Pos(), err))
		}
		return &published{validator: apiservervalidation.NewSchemaValidatorFromOpenAPI(s)}, nil
	})
}

// checkPublished checks an object against its kind's published schema:
// types, required fields, enums, formats and bounds, as the server's
// schema validation reads them; nothing else (the server may check more),
// and the result says so.
func (res *ObjectResult) checkPublished(d *manifest.Document, p *published, obj *unstructured.Unstructured, opts Options) {
	var err error
	if errs := apiservervalidation.ValidateCustomResource(nil, obj.Object, p.validator); len(errs) > 0 {
		err = apierrors.NewInvalid(obj.GroupVersionKind().GroupKind(), obj.GetName(), errs)
	}
	res.Checks = "schema"
	res.report(d, Result{Err: err}, opts)
	w := Problem{Field: "kind", Type: SchemaOnly, Message: "checked against the OpenAPI schema the cluster publishes only (no CustomResourceDefinition defines the kind, and kubectl crd does not run the server's own checks of it)"}
	w.Line, w.Column = d.Position(w.Field)
	res.Warnings = append(res.Warnings, w)
}
