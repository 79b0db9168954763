package policies

import (
	"fmt"

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
	// Warnings are what type-checking its ValidatingAdmissionPolicies
	// found, as the server writes them in status.typeChecking, each with
	// its place (FILE:LINE:COLUMN: FIELD: WARNING) when read from a file,
	// and the bindings that name no policy of the set (Unbound).
	Warnings []string
}

// Unbound says of each binding that names a policy the set does not have:
// the server accepts such a binding and it does nothing, which in a set
// read from files is most likely a misspelt name.
func (s *Set) Unbound() []string {
	validating, mutating := map[string]bool{}, map[string]bool{}
	for _, p := range s.Validating {
		validating[p.Name] = true
	}
	for _, p := range s.Mutating {
		mutating[p.Name] = true
	}
	var out []string
	for _, b := range s.ValidatingBindings {
		if !validating[b.Spec.PolicyName] {
			out = append(out, fmt.Sprintf("%s %q binds %s %q, which is not given: it does nothing", ValidatingBindingKind, b.Name, ValidatingKind, b.Spec.PolicyName))
		}
	}
	for _, b := range s.MutatingBindings {
		if !mutating[b.Spec.PolicyName] {
			out = append(out, fmt.Sprintf("%s %q binds %s %q, which is not given: it does nothing", MutatingBindingKind, b.Name, MutatingKind, b.Spec.PolicyName))
		}
	}
	return out
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

// Add adds one object, by its kind. A policy or binding must be at
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
