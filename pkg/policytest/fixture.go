package policytest

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
)

// fixture is what a Test's files give: the admission configuration (the
// policies with their bindings, the params, the namespaces), the objects
// to admit, who sends them, and the names of Kyverno's own policies.
type fixture struct {
	set     *policies.Set
	objects []object
	user    user.Info
	kyverno map[string]string // Kyverno policy name -> kind
	notes   []string
}

// object is one resource of a Test.
type object struct {
	kind, namespace, name string
	doc                   *manifest.Document
}

// meta is a document's kind, namespace and name.
type meta struct {
	gvk             schema.GroupVersionKind
	namespace, name string
}

func metaOf(d *manifest.Document) meta {
	var m struct {
		Metadata struct {
			Name      string `json:"name"`
			Namespace string `json:"namespace"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(d.JSON, &m)
	tm := d.TypeMeta()
	return meta{gvk: schema.FromAPIVersionAndKind(tm.APIVersion, tm.Kind), namespace: m.Metadata.Namespace, name: m.Metadata.Name}
}

// isKyverno tells whether a kind is one of Kyverno's own policies
// (kyverno.io and its subgroups: ClusterPolicy, Policy, ValidatingPolicy,
// ...), which kubectl crd does not answer.
func isKyverno(gvk schema.GroupVersionKind) bool {
	return gvk.Group == "kyverno.io" || strings.HasSuffix(gvk.Group, ".kyverno.io")
}

// fixture reads the files of t: its policies and paramResources as
// validate --policies reads its files (each object as the server would
// store it, each error at its file and line), its Values' namespaces, its
// resources and its UserInfo.
func (r *Runner) fixture(ctx context.Context, t *Test) (*fixture, error) {
	fx := &fixture{user: r.User, kyverno: map[string]string{}}
	var configuration []manifest.Document
	for _, p := range append(append([]string(nil), t.Policies...), t.ParamResources...) {
		docs, err := r.read(t, p)
		if err != nil {
			return nil, err
		}
		for i := range docs {
			if m := metaOf(&docs[i]); isKyverno(m.gvk) {
				fx.kyverno[m.name] = m.gvk.Kind
				continue
			}
			configuration = append(configuration, docs[i])
		}
	}
	namespaces, err := r.namespaces(t)
	if err != nil {
		return nil, err
	}
	configuration = append(configuration, namespaces...)
	cat := r.Env.Catalog
	if fx.set, err = r.Env.PolicySet(ctx, cat, configuration); err != nil {
		return nil, err
	}
	fx.notes = append(fx.notes, fx.set.Warnings...)
	for _, p := range t.Resources {
		docs, err := r.read(t, p)
		if err != nil {
			return nil, err
		}
		for i := range docs {
			d := &docs[i]
			m := metaOf(d)
			if m.namespace == "" && r.namespaced(m.gvk) {
				m.namespace = builtin.NamespaceOr("", r.Env.Options.Namespace)
			}
			fx.objects = append(fx.objects, object{kind: m.gvk.Kind, namespace: m.namespace, name: m.name, doc: d})
		}
	}
	if t.UserInfo != "" {
		if fx.user, err = r.userInfo(t); err != nil {
			return nil, err
		}
	}
	return fx, nil
}

// namespaced tells whether objects of gvk live in a namespace: a built-in
// kind's scope, or a CRD's; a kind neither knows is taken as namespaced.
func (r *Runner) namespaced(gvk schema.GroupVersionKind) bool {
	if kind, err := r.Env.Options.BuiltIn.Lookup(gvk); err == nil && kind != nil {
		return kind.Namespaced()
	}
	if crd, err := r.Env.Catalog.ForKind(context.Background(), gvk.GroupKind()); err == nil && crd != nil {
		return crd.Spec.Scope == "Namespaced"
	}
	return true
}

// read reads the documents of a file a Test names; one that cannot be
// read is an error at its place (ReadPaths is strict).
func (r *Runner) read(t *Test, p string) ([]manifest.Document, error) {
	return manifest.ReadPaths([]string{resolve(t.File, p)}, true, r.Sources)
}

// namespaces are the namespaces a Test's Values give (variables: a file,
// values: inline), as documents: each namespaceSelector entry a
// Namespace with its labels, and each namespace given whole.
func (r *Runner) namespaces(t *Test) ([]manifest.Document, error) {
	var values []Values
	if t.Values != nil {
		values = append(values, *t.Values)
	}
	if t.Variables != "" {
		docs, err := r.read(t, t.Variables)
		if err != nil {
			return nil, err
		}
		for i := range docs {
			var v struct {
				APIVersion string          `json:"apiVersion"`
				Kind       string          `json:"kind"`
				Metadata   json.RawMessage `json:"metadata"`
				Values
			}
			if err := strictJSON(docs[i].JSON, &v); err != nil {
				return nil, placed(&docs[i], err)
			}
			values = append(values, v.Values)
		}
	}
	var texts []string
	for _, v := range values {
		for _, s := range v.NamespaceSelectors {
			ns := map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": s.Name, "labels": s.Labels}}
			js, err := json.Marshal(ns)
			if err != nil {
				return nil, err
			}
			texts = append(texts, string(js))
		}
		for _, ns := range v.Namespaces {
			texts = append(texts, string(ns))
		}
	}
	if len(texts) == 0 {
		return nil, nil
	}
	name := t.Variables
	if name == "" {
		name = t.File
	}
	return manifest.Read(resolve(t.File, name)+" (namespaces)", []byte(strings.Join(texts, "\n")))
}

// userInfo reads a UserInfo file: the user, in the groups the server adds
// for an authenticated one.
func (r *Runner) userInfo(t *Test) (user.Info, error) {
	docs, err := r.read(t, t.UserInfo)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("%s: a UserInfo file holds one document, not %d", resolve(t.File, t.UserInfo), len(docs))
	}
	var info struct {
		APIVersion string          `json:"apiVersion"`
		Kind       string          `json:"kind"`
		Metadata   json.RawMessage `json:"metadata"`
		RequestInfo
	}
	if err := strictJSON(docs[0].JSON, &info); err != nil {
		return nil, placed(&docs[0], err)
	}
	u := info.UserInfo
	groups := slices.Clone(u.Groups)
	if !slices.Contains(groups, user.AllAuthenticated) {
		groups = append(groups, user.AllAuthenticated)
	}
	return &user.DefaultInfo{Name: u.Username, UID: u.UID, Groups: groups, Extra: u.Extra}, nil
}

// validating and mutating are the policies of the set, by name.
func (fx *fixture) validating(name string) *admissionregistrationv1.ValidatingAdmissionPolicy {
	for _, p := range fx.set.Validating {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func (fx *fixture) mutating(name string) *admissionregistrationv1.MutatingAdmissionPolicy {
	for _, p := range fx.set.Mutating {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// find is the object of kind a result names (NAME, or NAMESPACE/NAME).
func (fx *fixture) find(kind, name string) (object, bool) {
	namespace, n, qualified := strings.Cut(name, "/")
	if !qualified {
		n = namespace
	}
	for _, o := range fx.objects {
		if o.name == n && (kind == "" || o.kind == kind) && (!qualified || o.namespace == namespace) {
			return o, true
		}
	}
	return object{}, false
}
