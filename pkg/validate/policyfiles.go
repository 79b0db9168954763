package validate

import (
	"context"
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ReadPolicies reads admission configuration from files (validate
// --policies): policies and bindings, namespaces, and params (every
// other object), with cat's CRDs for the params' kinds and the policies'
// rules. Each object of a kind kube-apiserver serves is taken as the
// server would store it on create (defaulted; a namespace labelled with
// its name; a namespaced one without a namespace in the environment's),
// and one the server would refuse, or of a version the Kubernetes
// version answered as does not serve, is an error at its file and line
// (at the field the server names, such as an expression that does not
// compile). The set's Warnings are the type checker's and those of
// policyWarnings, each at its place.
func (e *Environment) ReadPolicies(ctx context.Context, cat *catalog.Catalog, paths []string, src manifest.Sources) (*policies.Set, error) {
	docs, err := manifest.ReadPaths(paths, true, src)
	if err != nil {
		return nil, err
	}
	return e.PolicySet(ctx, cat, docs)
}

// PolicySet is ReadPolicies of documents already read.
func (e *Environment) PolicySet(ctx context.Context, cat *catalog.Catalog, docs []manifest.Document) (*policies.Set, error) {
	set := &policies.Set{}
	at := placed{}
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			return nil, d.Err
		}
		obj, err := e.stored(ctx, cat, d)
		if err != nil {
			line, column := d.Line, d.Column
			if r, ok := err.(*refused); ok && r.field != "" {
				line, column = d.Position(placeOf(r.field))
			}
			return nil, &manifest.Error{File: d.File, Line: line, Column: column, Msg: err.Error()}
		}
		if typeChecked(obj.GroupVersionKind()) {
			warnings, _ := TypeWarnings(ctx, obj.Object, e.Options.BuiltIn, cat)
			for _, w := range warnings {
				line, column := d.Position(placeOf(w.FieldRef))
				set.Warnings = append(set.Warnings, fmt.Sprintf("%s:%d:%d: %s: %s", d.File, line, column, w.FieldRef, w.Warning))
			}
		}
		if policies.IsPolicyKind(obj.GroupVersionKind().GroupKind()) {
			at[placeKey(obj.GetKind(), obj.GetName())] = d
		}
		if err := set.Add(obj); err != nil {
			return nil, &manifest.Error{File: d.File, Line: d.Line, Column: d.Column, Msg: err.Error()}
		}
	}
	set.Warnings = append(set.Warnings, e.policyWarnings(ctx, cat, set, at)...)
	return set, nil
}

// WithInputNamespaces adds to set the Namespaces of the pipeline's input,
// as the server would store them: after kubectl apply of the input they
// exist, with their labels, whatever their place in it, and replace a
// namespace of the same name that set has. One that the server would
// refuse is left out (its own result says why).
func (e *Environment) WithInputNamespaces(ctx context.Context, p *Pipeline, set *policies.Set) error {
	docs, err := p.namespaceDocuments()
	if err != nil {
		return err
	}
	for _, d := range docs {
		if obj, err := e.stored(ctx, p.Catalog(), d); err == nil {
			if err := set.Add(obj); err != nil {
				return err
			}
		}
	}
	return nil
}

// refused is the server's refusal of a create: the first field it names
// ("" when none) and every cause.
type refused struct {
	field string
	msg   string
}

func (r *refused) Error() string { return r.msg }

// stored is the object of d as the server would store it on create, in
// the namespace kubectl apply puts it in (its own, else the
// environment's). An object of a kind that is not built in (a param) is
// taken as it is, but for its namespace, when a CRD of cat serves its
// kind. A create the server refuses is a *refused.
func (e *Environment) stored(ctx context.Context, cat *catalog.Catalog, d *manifest.Document) (*unstructured.Unstructured, error) {
	obj, err := d.TakeObject()
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: obj}
	gvk := u.GroupVersionKind()
	kind, err := e.Options.BuiltIn.Lookup(gvk)
	switch {
	case err != nil && policies.IsPolicyKind(gvk.GroupKind()):
		if e.Options.KubernetesVersion != nil {
			err = fmt.Errorf("%w (Kubernetes %s does not serve it)", err, e.Options.KubernetesVersion)
		}
		return nil, err
	case kind == nil:
		// A param: its kind must be served.
		_, namespaced, found, err := resourceOf(ctx, e.Options.BuiltIn, cat)(gvk)
		switch {
		case err != nil:
			return nil, err
		case !found:
			return nil, fmt.Errorf("no matches for kind %q in version %q: a param's kind is served by the cluster (give its CRD with --crds)", gvk.Kind, gvk.GroupVersion())
		case namespaced:
			u.SetNamespace(builtin.NamespaceOr(u.GetNamespace(), e.Options.Namespace))
		}
		return u, nil
	}
	res := kind.Create(ctx, d.JSON, e.Options.Namespace, true, nil)
	if res.Err == nil {
		return &unstructured.Unstructured{Object: res.Object}, nil
	}
	causes := Result{Err: res.Err}.Causes()
	r := &refused{}
	msgs := make([]string, len(causes))
	for i, c := range causes {
		msgs[i] = c.Message
		if c.Field != "" && !strings.HasPrefix(c.Message, c.Field) {
			msgs[i] = c.Field + ": " + c.Message
		}
		if r.field == "" {
			r.field = c.Field
		}
	}
	r.msg = fmt.Sprintf("%s %q cannot be created: %s", gvk.Kind, u.GetName(), strings.Join(msgs, "; "))
	return nil, r
}
