// Package policies runs the API server's admission policies on the client:
// ValidatingAdmissionPolicy and MutatingAdmissionPolicy, with their
// bindings, params and namespaces, evaluated by k8s.io/apiserver's own
// admission plugins (policy/validating and policy/mutating: their
// matcher, CEL compiler, evaluator and dispatcher).
//
// The plugins read their configuration through informers, as in
// kube-apiserver; here the informers list in-memory clients that hold the
// given objects, so the plugins run unchanged. What is not the server's:
// a namespace that was not given is taken as one with only the label the
// server gives every namespace (kubernetes.io/metadata.name), and the
// authorizer CEL library answers "no opinion" to every check (RBAC is the
// cluster's).
package policies
