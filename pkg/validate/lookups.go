package validate

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// builtinKind is what builtin.Kinds said of a kind.
type builtinKind struct {
	kind *builtin.Kind
	err  error // a *builtin.NotServedError or *builtin.UncheckedError
}

// builtinFor looks a kind up among kube-apiserver's own (nil: it is not
// one of them).
func (c *checker) builtinFor(gvk schema.GroupVersionKind, d *manifest.Document) (builtinKind, error) {
	if c.opts.BuiltIn == nil {
		return builtinKind{}, nil
	}
	return c.builtins.Get(gvk, func() (builtinKind, error) {
		c.lookups.Lock()
		defer c.lookups.Unlock()
		kind, err := c.opts.BuiltIn.Lookup(gvk)
		var notServed *builtin.NotServedError
		var unchecked *builtin.UncheckedError
		if err != nil && !errors.As(err, &notServed) && !errors.As(err, &unchecked) {
			return builtinKind{}, c.fail(&LookupError{What: fmt.Sprintf("finding whether the cluster serves %s", gvk), Place: d.Pos(), Err: err})
		}
		return builtinKind{kind, err}, nil
	})
}

// LookupError is a question the check could not get answered (the
// cluster cannot be asked, say), which ends the check: what was asked,
// for the document at Place, and Err, the cause.
type LookupError struct {
	What, Place string
	Err         error
}

func (e *LookupError) Error() string { return fmt.Sprintf("%s (at %s): %v", e.What, e.Place, e.Err) }

func (e *LookupError) Unwrap() error { return e.Err }

// kindCRD is what the documents of one kind share: the outline of its
// CRD (names, scope, versions), and the whole CRD until the first
// validator is built from it. A CRD's schemas are most of its memory and
// are not kept: another version's validator finds the CRD again.
type kindCRD struct {
	*catalog.CRD // the outline
	whole        atomic.Pointer[catalog.CRD]
}

// crdFor returns the CRD of a kind (nil: none defines it).
func (c *checker) crdFor(ctx context.Context, gk schema.GroupKind, d *manifest.Document) (*kindCRD, error) {
	return c.crds.Get(gk, func() (*kindCRD, error) {
		c.lookups.Lock()
		defer c.lookups.Unlock()
		whole, err := c.kinds.ForKind(ctx, gk)
		if err != nil {
			return nil, c.fail(&LookupError{What: fmt.Sprintf("finding the CustomResourceDefinition of %s", gk), Place: d.Pos(), Err: err})
		}
		if whole == nil {
			return nil, nil
		}
		outline := &catalog.CRD{CustomResourceDefinition: catalog.Outline(whole.CustomResourceDefinition), Origin: whole.Origin}
		crd := &kindCRD{CRD: outline}
		crd.whole.Store(whole)
		return crd, nil
	})
}

// validatorFor returns the validator of a version of crd, built the
// first time it is asked for.
func (c *checker) validatorFor(ctx context.Context, gvk schema.GroupVersionKind, crd *kindCRD) (*Validator, error) {
	return c.validators.Get(validatorKey(crd, gvk.Version), func() (*Validator, error) {
		whole, err := c.takeWhole(ctx, gvk.GroupKind(), crd)
		if err != nil {
			return nil, err
		}
		if c.opts.Admission != nil {
			return NewAdmissionValidator(whole.CustomResourceDefinition, gvk.Version)
		}
		return NewValidator(whole.CustomResourceDefinition, gvk.Version)
	})
}

// validatorKey names the validator of a version of crd.
func validatorKey(crd *kindCRD, version string) string {
	return crd.Name + "/" + version
}

// takeWhole returns the whole CRD of crd: the one it was found with, the
// first time, and then the CRD found again.
func (c *checker) takeWhole(ctx context.Context, gk schema.GroupKind, crd *kindCRD) (*catalog.CRD, error) {
	if whole := crd.whole.Swap(nil); whole != nil {
		return whole, nil
	}
	c.lookups.Lock()
	defer c.lookups.Unlock()
	again, err := c.kinds.ForKind(ctx, gk)
	if err != nil {
		return nil, err
	}
	if again == nil || again.Name != crd.Name {
		return nil, fmt.Errorf("the CustomResourceDefinition %s (%s) is no longer there", crd.Name, crd.Origin)
	}
	return again, nil
}
