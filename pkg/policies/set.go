package policies

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Set is what admission is configured with: the policies, their bindings,
// the param objects they read and the namespaces their namespaceSelectors
// read.
type Set struct {
	Validating         []*admissionregistrationv1.ValidatingAdmissionPolicy
	ValidatingBindings []*admissionregistrationv1.ValidatingAdmissionPolicyBinding
	Mutating           []*admissionregistrationv1.MutatingAdmissionPolicy
	MutatingBindings   []*admissionregistrationv1.MutatingAdmissionPolicyBinding
	// Params are the objects of any other kind: what paramRefs name.
	Params     []*unstructured.Unstructured
	Namespaces []*corev1.Namespace
	// Warnings are what reading the set found, each with its place
	// (FILE:LINE:COLUMN: FIELD: WARNING) when read from a file: what
	// type-checking its ValidatingAdmissionPolicies found, as the server
	// writes it in status.typeChecking, and what can never take effect.
	Warnings []string
}

// The kinds a Set holds by type; everything else is a param.
var (
	admissionV1 = admissionregistrationv1.SchemeGroupVersion
	namespaceGK = schema.GroupKind{Kind: "Namespace"}
)

// Kinds of the policies and their bindings.
const (
	ValidatingKind        = "ValidatingAdmissionPolicy"
	ValidatingBindingKind = "ValidatingAdmissionPolicyBinding"
	MutatingKind          = "MutatingAdmissionPolicy"
	MutatingBindingKind   = "MutatingAdmissionPolicyBinding"
)

// IsPolicyKind tells whether gk is one of the four kinds of admission
// policy configuration.
func IsPolicyKind(gk schema.GroupKind) bool {
	if gk.Group != admissionV1.Group {
		return false
	}
	switch gk.Kind {
	case ValidatingKind, ValidatingBindingKind, MutatingKind, MutatingBindingKind:
		return true
	}
	return false
}

// Add adds one object, by its kind (a Namespace replaces one of the same
// name). A policy or binding must be at
// admissionregistration.k8s.io/v1 (the version the plugins read; which
// Kubernetes versions serve it is for the caller to say), and decode as
// one.
func (s *Set) Add(obj *unstructured.Unstructured) error {
	gvk := obj.GroupVersionKind()
	switch {
	case IsPolicyKind(gvk.GroupKind()) && gvk.Version != admissionV1.Version:
		return fmt.Errorf("%s %s: policies are read at %s", gvk.GroupVersion(), gvk.Kind, admissionV1)
	case gvk.GroupKind() == namespaceGK && gvk.Version == "v1":
		ns := &corev1.Namespace{}
		if err := fromUnstructured(obj, ns); err != nil {
			return err
		}
		// A namespace given again is the one applied last.
		s.Namespaces = slices.DeleteFunc(s.Namespaces, func(n *corev1.Namespace) bool { return n.Name == ns.Name })
		s.Namespaces = append(s.Namespaces, ns)
	case !IsPolicyKind(gvk.GroupKind()):
		s.Params = append(s.Params, obj)
	case gvk.Kind == ValidatingKind:
		p := &admissionregistrationv1.ValidatingAdmissionPolicy{}
		if err := fromUnstructured(obj, p); err != nil {
			return err
		}
		s.Validating = append(s.Validating, p)
	case gvk.Kind == ValidatingBindingKind:
		b := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}
		if err := fromUnstructured(obj, b); err != nil {
			return err
		}
		s.ValidatingBindings = append(s.ValidatingBindings, b)
	case gvk.Kind == MutatingKind:
		p := &admissionregistrationv1.MutatingAdmissionPolicy{}
		if err := fromUnstructured(obj, p); err != nil {
			return err
		}
		s.Mutating = append(s.Mutating, p)
	case gvk.Kind == MutatingBindingKind:
		b := &admissionregistrationv1.MutatingAdmissionPolicyBinding{}
		if err := fromUnstructured(obj, b); err != nil {
			return err
		}
		s.MutatingBindings = append(s.MutatingBindings, b)
	}
	return nil
}

// paramKinds are the paramKinds of the set's policies.
func (s *Set) paramKinds() []*admissionregistrationv1.ParamKind {
	var out []*admissionregistrationv1.ParamKind
	for _, p := range s.Validating {
		if p.Spec.ParamKind != nil {
			out = append(out, p.Spec.ParamKind)
		}
	}
	for _, p := range s.Mutating {
		if p.Spec.ParamKind != nil {
			out = append(out, p.Spec.ParamKind)
		}
	}
	return out
}

// readsNamespaces tells whether a policy or binding of the set reads
// the namespace of a request beyond its name: a namespaceSelector that
// selects, or namespaceObject in an expression.
func (s *Set) readsNamespaces() bool {
	selects := func(m *admissionregistrationv1.MatchResources) bool {
		return m != nil && m.NamespaceSelector != nil && (len(m.NamespaceSelector.MatchLabels) > 0 || len(m.NamespaceSelector.MatchExpressions) > 0)
	}
	for _, p := range s.Validating {
		if selects(p.Spec.MatchConstraints) || mentions(p.Spec, "namespaceObject") {
			return true
		}
	}
	for _, b := range s.ValidatingBindings {
		if selects(b.Spec.MatchResources) {
			return true
		}
	}
	for _, p := range s.Mutating {
		if selects(p.Spec.MatchConstraints) || mentions(p.Spec, "namespaceObject") {
			return true
		}
	}
	for _, b := range s.MutatingBindings {
		if selects(b.Spec.MatchResources) {
			return true
		}
	}
	return false
}

// mentions tells whether a policy's spec holds s (in an expression: no
// other field of a spec could hold a CEL variable's name).
func mentions(spec any, s string) bool {
	js, err := json.Marshal(spec)
	return err == nil && bytes.Contains(js, []byte(s))
}

// Empty tells whether there is no policy: admission then changes nothing.
func (s *Set) Empty() bool {
	return s == nil || len(s.Validating)+len(s.Mutating) == 0
}

func fromUnstructured(obj *unstructured.Unstructured, into runtime.Object) error {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, into); err != nil {
		return fmt.Errorf("%s %q: %w", obj.GetKind(), obj.GetName(), err)
	}
	return nil
}
