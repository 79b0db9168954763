package policies

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Change is one mutating policy's part of a mutation: the JSON merge
// patch it made of the object as the policies before it left it.
type Change struct {
	Policy string          `json:"policy"`
	Patch  json.RawMessage `json:"patch"`
}

// alone are the chains of one mutating policy each, started when a
// mutation is first attributed: most runs never need them.
type alone struct {
	mu     sync.Mutex
	chains map[string]*Chain
}

// attribute names the mutating policies that made the mutation from
// before to r.Object, each with its patch.
//
// The plugin applies its policies together and says nothing of which
// changed what, in an order it takes from a Go map (not stable, on the
// server either). So the mutation is replayed one policy at a time, in
// the order of their names, each policy as its own plugin with the same
// bindings, params and namespaces; when one changed the object, those
// that ask for it (reinvocationPolicy IfNeeded) run once more, as the
// server reinvokes them. A policy that changed the object in both rounds
// is named twice. The parts are given only when the replay ends at the
// object the policies made together: when the order matters, which
// policy made which part has no one answer, and none is given (the
// mutation as a whole still is).
func (c *Chain) attribute(ctx context.Context, r Request, before runtime.Object) []Change {
	want := versioned(r, r.Object)
	if len(c.set.Mutating) == 1 {
		return []Change{{Policy: c.set.Mutating[0].Name, Patch: mergePatch(versioned(r, before), want)}}
	}
	ordered := slices.SortedFunc(slices.Values(c.set.Mutating), func(a, b *admissionregistrationv1.MutatingAdmissionPolicy) int {
		return strings.Compare(a.Name, b.Name)
	})
	obj := before.DeepCopyObject()
	var changes []Change
	replay := func(reinvoke bool) bool {
		for _, p := range ordered {
			if reinvoke && (p.Spec.ReinvocationPolicy != admissionregistrationv1.IfNeededReinvocationPolicy) {
				continue
			}
			one, err := c.alone(p.Name)
			if err != nil {
				return false
			}
			prev := versioned(r, obj)
			step := r
			step.Object = obj
			if err := one.admitOnceSchemasRead(ctx, one.attributes(step), r.Interfaces); err != nil {
				return false
			}
			if patch := mergePatch(prev, versioned(r, obj)); patch != nil {
				changes = append(changes, Change{Policy: p.Name, Patch: patch})
			}
		}
		return true
	}
	if !replay(false) || len(changes) > 0 && !replay(true) {
		return nil
	}
	if !sameJSON(versioned(r, obj), want) {
		return nil
	}
	return changes
}

// alone is the chain of the mutating policy named name alone.
func (c *Chain) alone(name string) (*Chain, error) {
	c.parts.mu.Lock()
	defer c.parts.mu.Unlock()
	if one, ok := c.parts.chains[name]; ok {
		return one, nil
	}
	set := &Set{Params: c.set.Params, Namespaces: c.set.Namespaces}
	for _, p := range c.set.Mutating {
		if p.Name == name {
			set.Mutating = append(set.Mutating, p)
		}
	}
	set.MutatingBindings = slices.DeleteFunc(slices.Clone(c.set.MutatingBindings), func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding) bool {
		return b.Spec.PolicyName != name
	})
	one, err := Start(set, c.world)
	if err != nil {
		return nil, err
	}
	if c.parts.chains == nil {
		c.parts.chains = map[string]*Chain{}
	}
	c.parts.chains[name] = one
	return one, nil
}

// sameJSON tells whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	if a == nil || b == nil {
		return false
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ax, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return bytes.Equal(ax, by)
}

// MutationError is the server's refusal of a request that a mutating
// policy made (a patch that gives a field the wrong type is an internal
// error of the server, whose text names no policy), with the policy that
// made it.
type MutationError struct {
	// Policy names the MutatingAdmissionPolicy ("" when it could not be
	// told).
	Policy string
	Err    error
}

func (e *MutationError) Error() string { return e.Err.Error() }
func (e *MutationError) Unwrap() error { return e.Err }

// blame is err, the mutating plugin's refusal of r, with the policy that
// made it when its text names none: the one policy, or the first (in the
// order of their names) that refuses r alone.
func (c *Chain) blame(ctx context.Context, r Request, before runtime.Object, err error) error {
	if p, _ := Named(err.Error()); p != "" {
		return err
	}
	out := &MutationError{Err: err}
	if len(c.set.Mutating) == 1 {
		out.Policy = c.set.Mutating[0].Name
		return out
	}
	for _, p := range slices.SortedFunc(slices.Values(c.set.Mutating), func(a, b *admissionregistrationv1.MutatingAdmissionPolicy) int {
		return strings.Compare(a.Name, b.Name)
	}) {
		one, startErr := c.alone(p.Name)
		if startErr != nil {
			break
		}
		step := r
		step.Object = before.DeepCopyObject()
		if one.admitOnceSchemasRead(ctx, one.attributes(step), r.Interfaces) != nil {
			out.Policy = p.Name
			break
		}
	}
	return out
}
