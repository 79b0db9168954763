package validate

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// placed are the documents the policies and bindings of a set were read
// from, by kind and name: where their warnings go.
type placed map[string]*manifest.Document

func placeKey(kind, name string) string { return kind + "/" + name }

// warning is a warning at a field of the document of kind and name,
// FILE:LINE:COLUMN: FIELD: WARNING (without a place when there is none).
func (p placed) warning(kind, name, field, msg string) string {
	d := p[placeKey(kind, name)]
	if d == nil {
		return fmt.Sprintf("%s %q: %s: %s", kind, name, field, msg)
	}
	line, column := d.Position(field)
	return fmt.Sprintf("%s:%d:%d: %s: %s", d.File, line, column, field, msg)
}

// policyWarnings are what can be told of a set before any object is
// checked: configuration the server accepts that can never take effect
// (a binding of a policy not given, a rule that names no resource
// served, a paramRef that finds no param) and expressions answered
// otherwise than on the server (authorizer checks). Each is said once,
// at its place.
func (e *Environment) policyWarnings(ctx context.Context, cat *catalog.Catalog, set *policies.Set, at placed) []string {
	var out []string
	// The policies given, by kind and name, with their paramKind.
	given := map[string]*admissionregistrationv1.ParamKind{}
	for _, p := range set.Validating {
		given[placeKey(policies.ValidatingKind, p.Name)] = p.Spec.ParamKind
		out = append(out, e.ruleWarnings(ctx, cat, at, policies.ValidatingKind, p.Name, "spec.matchConstraints", p.Spec.MatchConstraints)...)
		out = append(out, authorizerWarnings(at, policies.ValidatingKind, p.Name, &p.Spec)...)
	}
	for _, p := range set.Mutating {
		given[placeKey(policies.MutatingKind, p.Name)] = p.Spec.ParamKind
		out = append(out, e.ruleWarnings(ctx, cat, at, policies.MutatingKind, p.Name, "spec.matchConstraints", p.Spec.MatchConstraints)...)
		out = append(out, authorizerWarnings(at, policies.MutatingKind, p.Name, &p.Spec)...)
	}
	for _, b := range set.ValidatingBindings {
		out = append(out, e.bindingWarnings(ctx, cat, set, at, given, binding{kind: policies.ValidatingBindingKind, policyKind: policies.ValidatingKind,
			name: b.Name, policy: b.Spec.PolicyName, match: b.Spec.MatchResources, paramRef: b.Spec.ParamRef})...)
	}
	for _, b := range set.MutatingBindings {
		out = append(out, e.bindingWarnings(ctx, cat, set, at, given, binding{kind: policies.MutatingBindingKind, policyKind: policies.MutatingKind,
			name: b.Name, policy: b.Spec.PolicyName, match: b.Spec.MatchResources, paramRef: b.Spec.ParamRef})...)
	}
	return out
}

// ruleWarnings warn of each resourceRules entry of m that names no
// resource served (by kube-apiserver, by a CRD known, or online by an
// aggregated API): the policy or binding never matches through it.
// Exclusions are not checked: one that excludes nothing changes nothing.
// binding is what the warnings of a binding, validating or mutating,
// read of it: its policy, what it matches, the param it names.
type binding struct {
	kind, policyKind, name, policy string
	match                          *admissionregistrationv1.MatchResources
	paramRef                       *admissionregistrationv1.ParamRef
}

// bindingWarnings are a binding's: its policy not given (it does
// nothing), else the resources it matches and the param it names (given:
// the policies of the set, with their paramKind).
func (e *Environment) bindingWarnings(ctx context.Context, cat *catalog.Catalog, set *policies.Set, at placed, given map[string]*admissionregistrationv1.ParamKind, b binding) []string {
	paramKind, ok := given[placeKey(b.policyKind, b.policy)]
	if !ok {
		return []string{at.warning(b.kind, b.name, "spec.policyName", fmt.Sprintf("%s %q is not given: the binding does nothing", b.policyKind, b.policy))}
	}
	out := e.ruleWarnings(ctx, cat, at, b.kind, b.name, "spec.matchResources", b.match)
	if w := paramWarning(set, paramKind, b.paramRef); w != "" {
		out = append(out, at.warning(b.kind, b.name, "spec.paramRef", w))
	}
	return out
}

func (e *Environment) ruleWarnings(ctx context.Context, cat *catalog.Catalog, at placed, kind, name, field string, m *admissionregistrationv1.MatchResources) []string {
	if m == nil {
		return nil
	}
	var out []string
	for i, r := range m.ResourceRules {
		if e.ruleMatchesSome(ctx, cat, r.RuleWithOperations.Rule) {
			continue
		}
		msg := fmt.Sprintf("no resource served matches apiGroups %q, apiVersions %q, resources %q (kube-apiserver's own and the CRDs known): the rule never matches", r.APIGroups, r.APIVersions, r.Resources)
		if near := e.nearResources(ctx, cat, r.Rule); len(near) > 0 {
			msg += "; did you mean " + strings.Join(near, " or ") + "?"
		}
		out = append(out, at.warning(kind, name, fmt.Sprintf("%s.resourceRules[%d]", field, i), msg))
	}
	return out
}

// ruleMatchesSome tells whether a rule names a resource served. A
// wildcard group or resource is taken to match one (what it matches is
// not listed on the client), as is a group the cluster serves by an
// aggregated API.
func (e *Environment) ruleMatchesSome(ctx context.Context, cat *catalog.Catalog, r admissionregistrationv1.Rule) bool {
	for _, group := range r.APIGroups {
		for _, res := range r.Resources {
			resource, _, _ := strings.Cut(res, "/") // its subresources are served with it
			if group == "*" || resource == "*" {
				return true
			}
			for _, version := range r.APIVersions {
				if e.servesResource(ctx, cat, schema.GroupResource{Group: group, Resource: resource}, version) {
					return true
				}
			}
		}
	}
	return false
}

// servesResource tells whether gr is served at version ("*": any), and
// takes a question that cannot be answered as a yes.
func (e *Environment) servesResource(ctx context.Context, cat *catalog.Catalog, gr schema.GroupResource, version string) bool {
	if e.Options.BuiltIn.ServesResource(gr, version) || gr == (schema.GroupResource{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}) {
		return true
	}
	if cat != nil {
		crd, err := cat.ForResource(ctx, gr)
		if err != nil {
			return true
		}
		if crd != nil && (version == "*" || apihelpers.HasServedCRDVersion(crd.CustomResourceDefinition, version)) {
			return true
		}
	}
	return e.aggregated(gr.Group)
}

// aggregated tells whether the cluster serves group through discovery
// (an aggregated API, such as metrics.k8s.io); offline, none is.
func (e *Environment) aggregated(group string) bool {
	if e.cluster.Discovery == nil {
		return false
	}
	groups, err := e.cluster.Discovery.ServerGroups()
	if err != nil {
		return true
	}
	return slices.ContainsFunc(groups.Groups, func(g metav1.APIGroup) bool { return g.Name == group })
}

// nearResources are the resources served in a rule's groups that are
// closest to those it names (a singular, a misspelling).
func (e *Environment) nearResources(ctx context.Context, cat *catalog.Catalog, r admissionregistrationv1.Rule) []string {
	var near []string
	for _, group := range r.APIGroups {
		served := e.Options.BuiltIn.ResourcesInGroup(group)
		if cat != nil {
			crds, _ := cat.ResourcesInGroup(ctx, group)
			served = append(served, crds...)
		}
		for _, res := range r.Resources {
			resource, _, _ := strings.Cut(res, "/")
			for _, c := range catalog.Closest(resource, served) {
				if !slices.Contains(near, c) {
					near = append(near, c)
				}
			}
		}
	}
	return near
}

// paramWarning says of a binding's paramRef that finds no param of the
// policy's paramKind among those given, with what the server then does
// ("" when one is found, or the binding names none).
func paramWarning(set *policies.Set, kind *admissionregistrationv1.ParamKind, ref *admissionregistrationv1.ParamRef) string {
	if kind == nil || ref == nil {
		return ""
	}
	gv, err := schema.ParseGroupVersion(kind.APIVersion)
	if err != nil {
		return ""
	}
	var selector labels.Selector
	if ref.Selector != nil {
		if selector, err = metav1.LabelSelectorAsSelector(ref.Selector); err != nil {
			return ""
		}
	}
	for _, p := range set.Params {
		switch {
		case p.GroupVersionKind().GroupKind() != gv.WithKind(kind.Kind).GroupKind():
		case ref.Namespace != "" && p.GetNamespace() != ref.Namespace:
		case ref.Name != "" && p.GetName() == ref.Name:
			return ""
		case selector != nil && selector.Matches(labels.Set(p.GetLabels())):
			return ""
		}
	}
	what := fmt.Sprintf("%s %q", kind.Kind, ref.Name)
	if ref.Name == "" {
		what = fmt.Sprintf("a %s that the selector selects", kind.Kind)
	}
	if ref.Namespace != "" {
		what += " in namespace " + ref.Namespace
	}
	then := "the binding admits every request it matches (parameterNotFoundAction Allow)"
	if ref.ParameterNotFoundAction != nil && *ref.ParameterNotFoundAction == admissionregistrationv1.DenyAction {
		then = "the binding denies every request it matches (parameterNotFoundAction Deny)"
	}
	return fmt.Sprintf("the param %s is not given: %s", what, then)
}

// authorizerCall matches a use of the authorizer CEL library.
var authorizerCall = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bauthorizer\s*\.`)
})

// authorizerWarnings warn of each expression of a policy's spec (a
// pointer) that calls the authorizer: RBAC is the cluster's, and on the client every
// check answers "no opinion" (allowed() is false).
func authorizerWarnings(at placed, kind, name string, spec any) []string {
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(spec)
	if err != nil {
		return nil
	}
	var out []string
	for _, field := range expressionFields(obj, "spec") {
		out = append(out, at.warning(kind, name, field,
			"calls authorizer: on the client every authorization check answers \"no opinion\" (allowed() is false), where the cluster's RBAC would answer"))
	}
	return out
}

// expressionFields are the paths of the string fields under v whose
// value calls the authorizer, in the order of the spec.
func expressionFields(v any, path string) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, expressionFields(v[k], path+"."+k)...)
		}
	case []any:
		for i, item := range v {
			out = append(out, expressionFields(item, fmt.Sprintf("%s[%d]", path, i))...)
		}
	case string:
		if authorizerCall().MatchString(v) {
			out = append(out, path)
		}
	}
	return out
}
