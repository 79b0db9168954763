package validate

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/internal/memo"
	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/cel/openapi/resolver"
)

// Kinds finds the CRD that defines a kind (a catalog.Catalog does): nil
// and no error when none does, an error when it cannot tell.
type Kinds interface {
	ForKind(ctx context.Context, gk schema.GroupKind) (*catalog.CRD, error)
	// KindsInGroup are the kinds CRDs define in a group: a kind none of
	// them is, in a group they serve, is a mistake, not a kind to skip.
	KindsInGroup(ctx context.Context, group string) ([]string, error)
}

// Problem is one error or warning about one object.
type Problem struct {
	Field   string `json:"field"`
	Type    string `json:"type"`
	Message string `json:"message"`
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	// Policy and Binding name the admission policy (and its binding) of
	// a denial or a warning.
	Policy  string `json:"policy,omitempty"`
	Binding string `json:"binding,omitempty"`
}

// ObjectResult is the verdict on one object.
type ObjectResult struct {
	File string `json:"file"`
	Line int    `json:"line"`
	// Source says what rendered the object, when a source did (flux:):
	// "Kustomization flux-system/apps (clusters/prod/apps.yaml:1)"; File
	// and Line are then where it came from.
	Source     string    `json:"source,omitempty"`
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Namespace  string    `json:"namespace,omitempty"`
	Name       string    `json:"name"`
	Operation  string    `json:"operation"`
	Status     Status    `json:"status"`
	Errors     []Problem `json:"errors"`
	Warnings   []Problem `json:"warnings"`
	Reason     string    `json:"reason,omitempty"` // why skipped, or the error
	// Checks is "schema" for an object checked against its kind's
	// published OpenAPI schema only; "" when checked as the server checks.
	Checks string `json:"checks,omitempty"`
	// Audit are the audit annotations admission policies added (an
	// Audit action's validation failures among them).
	Audit map[string]string `json:"audit,omitempty"`
	// Mutation is the JSON merge patch the mutating admission policies
	// made of the object.
	Mutation json.RawMessage `json:"mutation,omitempty"`
	// Mutations name the policies that made Mutation, each with its part.
	Mutations []policies.Change `json:"mutations,omitempty"`
	// Object is the valid object as the server would store it (with
	// Options.Keep).
	Object map[string]any `json:"-"`
}

// Status is an object's verdict.
type Status string

const (
	// Valid: the server would accept the object.
	Valid Status = "valid"
	// Invalid: the server would refuse it (Errors say why).
	Invalid Status = "invalid"
	// Skipped: not checked (Reason says why).
	Skipped Status = "skipped"
	// Errored: it could not be checked (Reason, or Errors, say why).
	Errored Status = "error"
)

// Summary counts the verdicts.
type Summary struct {
	Valid   int `json:"valid"`
	Invalid int `json:"invalid"`
	Skipped int `json:"skipped"`
	Errors  int `json:"errors"`
}

// Report is the verdict on every object, in input order.
type Report struct {
	Results []ObjectResult `json:"results"`
	Summary Summary        `json:"summary"`
	// KubernetesVersion is the version whose answers these are
	// (MAJOR.MINOR; see pkg/kubeversion).
	KubernetesVersion string `json:"kubernetesVersion"`
	// NotChecked says what the answers leave out, and why (the cluster's
	// admission policies that could not be read).
	NotChecked []string `json:"notChecked,omitempty"`
}

// UnknownFields says what unknown fields are: "strict" (errors), "warn"
// (warnings) or "ignore".
type UnknownFields string

// OldLookup finds the object a document would update: the live object, or
// one given in a file; nil and no error when there is none (a create).
// gvr is the resource of the object's kind gvk.
type OldLookup func(ctx context.Context, gvk schema.GroupVersionKind, gvr schema.GroupVersionResource, namespace, name string) (map[string]any, error)

// Options say how a Pipeline validates.
type Options struct {
	Unknown UnknownFields
	// StrictKinds makes objects of kinds without a CRD invalid, not
	// skipped.
	StrictKinds bool
	// BuiltIn checks the kinds kube-apiserver serves itself; nil skips
	// them.
	BuiltIn *builtin.Kinds
	// Skip, when set, tells which kinds are skipped unchecked.
	Skip func(schema.GroupVersionKind) bool
	// Published, when set, gives the OpenAPI schema the cluster publishes
	// for a kind (resolver.ClientDiscoveryResolver reads /openapi/v3):
	// objects of kinds that are neither built in nor defined by a CRD are
	// checked against it.
	Published resolver.SchemaResolver
	// Namespace is where namespaced objects without one go ("default"
	// when empty), as kubectl apply sends them.
	Namespace string
	// Old, when set, turns documents whose object exists into updates:
	// the patch kubectl apply makes of it (a three-way merge through its
	// last-applied annotation), or with Replace the document itself as a
	// PUT (kubectl replace, and tools that write whole objects).
	Old     OldLookup
	Replace bool
	// Admission, when set, runs the admission policies around the
	// server's checks, as the server's admission chain does.
	Admission *policies.Chain
	// OldCRD, when set, turns CRD documents whose CRD exists into updates:
	// it returns the CRD as the cluster keeps it (status included), nil
	// when there is none.
	OldCRD OldCRD
	// Keep keeps each valid object as the server would store it, in
	// ObjectResult.Object.
	Keep bool
	// Emit, when set, receives each result in input order as soon as it
	// and those before it are made; the Report then holds only the
	// summary.
	Emit func(ObjectResult)
	// KubernetesVersion is the version whose answers these are (nil: the
	// newest this build knows), for the reports to say. The checks read
	// it from the server code's compatibility registry, which
	// factory.AnswerAs sets, and the built-in kinds (served, deprecated)
	// from builtin.New's version.
	KubernetesVersion *version.Version
	// Found, when set, is told each CRD a kind of the input was found
	// in (a front end that watches their files).
	Found func(*catalog.CRD)
	// Cache, when set, is what earlier runs learnt and what this one
	// keeps (a long-lived front end passes the same one to every run);
	// else the run has its own.
	Cache *Cache
}

// Cache is what checks learn and keep: the CRD of each kind met, what
// kube-apiserver's own kinds and the published schemas say of a kind, and
// each CRD version's validator, each asked or built once. It is safe for
// concurrent use; runs that share one ask their Kinds one question at a
// time.
type Cache struct {
	lookups    sync.Mutex // one question to the catalog or the cluster at a time
	crds       memo.Map[schema.GroupKind, *kindCRD]
	builtins   memo.Map[schema.GroupVersionKind, builtinKind]
	published  memo.Map[schema.GroupVersionKind, *published]
	validators memo.Map[string, *Validator] // by CRD name and version
	groups     memo.Map[string, []string]   // the kinds CRDs define in a group
}

// NewCache makes an empty Cache.
func NewCache() *Cache { return &Cache{} }

// Forget drops what the cache knows of a kind's CRD and its validators:
// the CRD changed.
func (c *Cache) Forget(gk schema.GroupKind) {
	if crd, ok := c.crds.Known(gk); ok && crd != nil {
		prefix := crd.Name + "/"
		c.validators.Forget(func(k string) bool { return strings.HasPrefix(k, prefix) })
	}
	c.crds.Forget(func(k schema.GroupKind) bool { return k == gk })
	c.groups.Forget(func(g string) bool { return g == gk.Group })
}

// ForgetFailed drops the answers that were errors (a cluster that could
// not answer), so that the next run asks again.
func (c *Cache) ForgetFailed() {
	c.crds.ForgetFailed()
	c.builtins.ForgetFailed()
	c.published.ForgetFailed()
	c.validators.ForgetFailed()
	c.groups.ForgetFailed()
}
