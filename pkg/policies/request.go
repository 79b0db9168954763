package policies

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"sync"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// Admitted is what admission adds to an answer.
type Admitted struct {
	// Audit are the audit annotations the policies added.
	Audit map[string]string
	// Mutation is the JSON merge patch (RFC 7386) the mutating policies
	// made of the object, at the request's version (nil: none).
	Mutation []byte
	// Changes name the mutating policies that made Mutation, each with
	// its part (nil when their order decides it: see attribute).
	Changes []Change
}

// Admit answers r as the server's admission does around check, the
// strategy's validation: the mutating policies change the object, check
// runs on it, and, when it passes, the validating policies see the object
// as it would be stored. A nil Chain only runs check.
func (c *Chain) Admit(ctx context.Context, r Request, check func() error) (Admitted, error) {
	if c == nil {
		return Admitted{}, check()
	}
	attrs := c.attributes(r)
	var out Admitted
	if c.mutates {
		before := r.Object.DeepCopyObject()
		changed, err := c.mutate(ctx, attrs, r.Interfaces)
		out.Audit = attrs.annotations()
		if err != nil {
			return out, c.blame(ctx, r, before, err)
		}
		if changed {
			out.Mutation = mergePatch(versioned(r, before), versioned(r, r.Object))
			out.Changes = c.attribute(ctx, r, before)
		}
	}
	if err := check(); err != nil {
		out.Audit = attrs.annotations()
		return out, err
	}
	// Validation sees the object the strategy prepared (the server makes
	// new attributes of it; the audit annotations stay with the request).
	final := c.attributes(r)
	final.audit = attrs.audit
	err := c.validating.Validate(ctx, final, r.Interfaces)
	out.Audit = final.annotations()
	return out, err
}

// versioned is obj, an object of r, in JSON at the request's version
// (nil when it cannot be written).
func versioned(r Request, obj runtime.Object) []byte {
	if obj.GetObjectKind().GroupVersionKind() != r.Kind {
		out, err := r.Interfaces.GetObjectConvertor().ConvertToVersion(obj.DeepCopyObject(), r.Kind.GroupVersion())
		if err != nil {
			return nil
		}
		obj = out
	}
	js, err := json.Marshal(obj)
	if err != nil {
		return nil
	}
	return js
}

// mergePatch is the merge patch from before to after; nil when they are
// equal or either is unknown.
func mergePatch(before, after []byte) []byte {
	if before == nil || after == nil {
		return nil
	}
	patch, err := jsonpatch.CreateMergePatch(before, after)
	if err != nil || string(patch) == "{}" {
		return nil
	}
	return patch
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
//
// changed tells whether a policy changed the object: the plugin asks for
// reinvocation whenever one does.
func (c *Chain) mutate(ctx context.Context, attrs admission.Attributes, o admission.ObjectInterfaces) (changed bool, err error) {
	if err := c.admitOnceSchemasRead(ctx, attrs, o); err != nil {
		return false, err
	}
	if s := attrs.GetReinvocationContext(); s.ShouldReinvoke() {
		s.SetIsReinvoke()
		return true, c.mutating.Admit(ctx, attrs, o)
	}
	return false, nil
}

// admitOnceSchemasRead runs the mutating plugin. Its type converters are
// read from the OpenAPI paths it fetches when it starts, in a goroutine
// of its own; Start waits for that fetch to begin, and in the moment
// between the paths being returned and kept the plugin answers a kind it
// has not kept as the server does for a CRD just created: 503 "Resource
// kind ... not found". The schemas here are all there from the start, so
// that answer is asked again, a few times, a few milliseconds apart. It
// leaves the object as it was (the plugin writes it back only once every
// policy has run).
func (c *Chain) admitOnceSchemasRead(ctx context.Context, attrs admission.Attributes, o admission.ObjectInterfaces) error {
	for try := 0; ; try++ {
		err := c.mutating.Admit(ctx, attrs, o)
		if try == 20 || !apierrors.IsServiceUnavailable(err) || !strings.Contains(err.Error(), "There can be a delay") {
			return err
		}
		time.Sleep(5 * time.Millisecond)
	}
}
