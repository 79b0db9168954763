package policies

import (
	"context"
	"maps"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	"k8s.io/apiserver/pkg/authentication/user"
)

// Request is one write as admission sees it.
type Request struct {
	// Object is the object as decoded and defaulted; the mutating
	// policies change it in place. Old is the live object of an update.
	Object, Old runtime.Object
	// Kind and Resource are the request's: the version the object was
	// sent at.
	Kind     schema.GroupVersionKind
	Resource schema.GroupVersionResource
	// Namespace and Name are the object's.
	Namespace, Name string
	Operation       admission.Operation
	// Options are the request's options (metav1.CreateOptions, ...).
	Options runtime.Object
	// Interfaces convert and default objects of the kind, as the
	// request's handler does.
	Interfaces admission.ObjectInterfaces
}

// Run answers r as the server's admission does around check, the
// strategy's validation: the mutating policies change the object, check
// runs on it, and, when it passes, the validating policies see the object
// as it would be stored. The audit annotations the policies add are
// returned. A nil Chain only runs check.
func (c *Chain) Run(ctx context.Context, r Request, check func() error) (map[string]string, error) {
	if c == nil {
		return nil, check()
	}
	attrs := c.attributes(r)
	if c.mutates {
		if err := c.mutate(ctx, attrs, r.Interfaces); err != nil {
			return attrs.annotations(), err
		}
	}
	if err := check(); err != nil {
		return attrs.annotations(), err
	}
	// Validation sees the object the strategy prepared (the server makes
	// new attributes of it; the audit annotations stay with the request).
	final := c.attributes(r)
	final.audit = attrs.audit
	err := c.validating.Validate(ctx, final, r.Interfaces)
	return final.annotations(), err
}

func (c *Chain) attributes(r Request) *recorded {
	return &recorded{
		Attributes: admission.NewAttributesRecord(r.Object, r.Old, r.Kind, r.Namespace, r.Name, r.Resource, "",
			r.Operation, r.Options, false, c.user),
		audit: &audit{},
	}
}

// User is the user requests are sent as when none is named: an
// administrator, as a kubeconfig made by a cluster installer is.
func User() user.Info {
	return &user.DefaultInfo{Name: "kubernetes-admin", Groups: []string{"kubeadm:cluster-admins", user.AllAuthenticated}}
}

// recorded are request attributes that keep the audit annotations added
// to them.
type recorded struct {
	admission.Attributes
	audit *audit
}

type audit struct {
	mu sync.Mutex
	m  map[string]string
}

func (r *recorded) AddAnnotation(key, value string) error {
	return r.AddAnnotationWithLevel(key, value, auditinternal.LevelMetadata)
}

func (r *recorded) AddAnnotationWithLevel(key, value string, level auditinternal.Level) error {
	if err := r.Attributes.AddAnnotationWithLevel(key, value, level); err != nil {
		return err
	}
	r.audit.mu.Lock()
	defer r.audit.mu.Unlock()
	if r.audit.m == nil {
		r.audit.m = map[string]string{}
	}
	r.audit.m[key] = value
	return nil
}

func (r *recorded) annotations() map[string]string {
	r.audit.mu.Lock()
	defer r.audit.mu.Unlock()
	return maps.Clone(r.audit.m)
}

// mutate runs the mutating policies, and once more when one asks for it
// (reinvocationPolicy IfNeeded after a later change), as the server's
// admission chain does.
func (c *Chain) mutate(ctx context.Context, attrs admission.Attributes, o admission.ObjectInterfaces) error {
	if err := c.mutating.Admit(ctx, attrs, o); err != nil {
		return err
	}
	if s := attrs.GetReinvocationContext(); s.ShouldReinvoke() {
		s.SetIsReinvoke()
		return c.mutating.Admit(ctx, attrs, o)
	}
	return nil
}

func userNamed(name string) user.Info {
	return &user.DefaultInfo{Name: name, Groups: []string{user.AllAuthenticated}}
}
