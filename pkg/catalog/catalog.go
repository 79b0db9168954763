// Package catalog is where kubectl crd finds CustomResourceDefinitions, for
// every verb, and how a TYPE argument or an object's kind resolves to one.
//
// One policy: the CRDs in the input come first (the documents validate
// checks), then the --crds files, or else the cluster. --crds stands in
// for the cluster: with it nothing is read from a cluster. Without it the
// cluster is asked, and whatever keeps it from answering (no cluster
// configured, a broken kubeconfig, an unreachable or refusing server) is
// returned to the caller whenever the answer depends on it: it is never
// taken for "no such CRD". Every CRD keeps its origin (a file and line, or
// the cluster) for messages.
//
// A Catalog is not safe for concurrent use: callers resolve what they
// need first, then work in parallel.
package catalog

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/restmapper"
)

// CRD is a CustomResourceDefinition together with where it was read from.
type CRD struct {
	*apiextensionsv1.CustomResourceDefinition
	// Origin is "FILE:LINE" for CRDs read from files and "the cluster" for
	// CRDs read from a cluster.
	Origin string
}

// Place is the file and line of Origin (line 0 for a CRD read from a
// cluster).
func (c *CRD) Place() (file string, line int) {
	if i := strings.LastIndexByte(c.Origin, ':'); i > 0 {
		if n, err := strconv.Atoi(c.Origin[i+1:]); err == nil {
			return c.Origin[:i], n
		}
	}
	return c.Origin, 0
}

// FromCluster is the Origin of CRDs read from a cluster.
const FromCluster = "the cluster"

// Source is where CRDs come from besides the input: files or a cluster.
type Source interface {
	// Discovery answers the discovery questions about the source's
	// resources as an API server serving those CRDs would.
	Discovery() discovery.CachedDiscoveryInterface
	// Get returns the CRD with the given name (plural.group), or an error
	// that apierrors.IsNotFound recognises.
	Get(ctx context.Context, name string) (*CRD, error)
	// List returns every CRD.
	List(ctx context.Context) ([]*CRD, error)
	// ListWhere returns the CRDs keep says yes to, in List's order. keep
	// is given a CRD's outline (see Outline) or the whole CRD, so it may
	// look only at what an outline holds; over files, only the CRDs kept
	// are decoded.
	ListWhere(ctx context.Context, keep func(*apiextensionsv1.CustomResourceDefinition) bool) ([]*CRD, error)
	// Outlines returns every CRD's outline (see Outline), or more of
	// each, in List's order; over files, no CRD is decoded.
	Outlines(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error)
}

// Catalog answers which CRD defines a type, with kubectl's rules for
// names.
type Catalog struct {
	input map[schema.GroupKind]*CRD
	// source is nil when nothing but the input is asked (offline without
	// --crds); sourceErr says why a source that is needed cannot answer.
	source     Source
	sourceErr  error
	mapper     meta.ResettableRESTMapper
	categories restmapper.CategoryExpander
	warn       func(string)
}

// New makes a Catalog over source (nil: the input only). warn receives
// warnings (ambiguous short names, deprecated versions) without the
// "Warning: " prefix; it may be nil.
func New(source Source, warn func(string)) *Catalog {
	if warn == nil {
		warn = func(string) {}
	}
	c := &Catalog{source: source, warn: warn, input: map[schema.GroupKind]*CRD{}}
	if source != nil {
		dc := source.Discovery()
		c.mapper = restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(dc), dc, warn).(meta.ResettableRESTMapper)
		c.categories = restmapper.NewDiscoveryCategoryExpander(dc)
	}
	return c
}

// Unavailable makes a Catalog whose source cannot answer, for err: the
// input's CRDs still answer, anything else returns err.
func Unavailable(err error, warn func(string)) *Catalog {
	c := New(nil, warn)
	c.sourceErr = err
	return c
}

// AddInput puts CRDs read from the input before the source: an object
// beside its CRD is checked against that CRD, as kubectl apply would
// create the CRD first. Two different CRDs for one kind are an error:
// which one the objects would meet depends on the order of applying.
func (c *Catalog) AddInput(crds ...*CRD) error {
	for _, crd := range crds {
		gk := schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}
		if first := c.input[gk]; first != nil && !equality.Semantic.DeepEqual(first.Spec, crd.Spec) {
			return fmt.Errorf("two different CustomResourceDefinitions for kind %s: %q at %s and %q at %s",
				gk, first.Name, first.Origin, crd.Name, crd.Origin)
		}
		c.input[gk] = crd
	}
	return nil
}

// WithInput is a Catalog over the same source whose input is crds alone
// (checked as AddInput checks them): a long-lived front end checks each
// file with the CRDs in that file. The two catalogs share the source and
// are not safe for concurrent use together.
func (c *Catalog) WithInput(crds ...*CRD) (*Catalog, error) {
	out := *c
	out.input = map[schema.GroupKind]*CRD{}
	if err := out.AddInput(crds...); err != nil {
		return nil, err
	}
	return &out, nil
}

// errOffline answers what needs CRDs when there is no source at all.
var errOffline = errors.New("no CustomResourceDefinitions to look in: give --crds PATH")

// needSource returns why the source cannot answer, if it cannot.
func (c *Catalog) needSource() error {
	switch {
	case c.sourceErr != nil:
		return c.sourceErr
	case c.source == nil:
		return errOffline
	}
	return nil
}

// ForKind returns the CRD that defines a kind: from the input, then the
// source. It returns nil and no error when no CRD defines it (a built-in
// kind, or one nobody defined), and an error when the source cannot say.
func (c *Catalog) ForKind(ctx context.Context, gk schema.GroupKind) (*CRD, error) {
	if crd := c.input[gk]; crd != nil {
		return crd, nil
	}
	if gk.Group == "" {
		return nil, nil // the core group: no CRD can define a kind in it
	}
	if c.source == nil && c.sourceErr == nil {
		return nil, nil
	}
	if err := c.needSource(); err != nil {
		return nil, err
	}
	var crd *CRD
	err := c.refreshingStale(func() (err error) {
		mapping, err := c.mapper.RESTMapping(gk)
		if err != nil {
			return err
		}
		crd, err = c.source.Get(ctx, mapping.Resource.GroupResource().String())
		return err
	})
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return nil, nil
	}
	return crd, err
}

// ForResource returns the CRD named by a group resource (plural.group):
// from the input, then the source; nil and no error when no CRD defines
// it (as ForKind).
func (c *Catalog) ForResource(ctx context.Context, gr schema.GroupResource) (*CRD, error) {
	if gr.Group == "" {
		return nil, nil
	}
	for _, crd := range c.input {
		if crd.Spec.Group == gr.Group && crd.Spec.Names.Plural == gr.Resource {
			return crd, nil
		}
	}
	if c.source == nil && c.sourceErr == nil {
		return nil, nil
	}
	if err := c.needSource(); err != nil {
		return nil, err
	}
	crd, err := c.source.Get(ctx, gr.String())
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return crd, err
}

// Discovery is the source's discovery (kubectl's resource names).
func (c *Catalog) Discovery() (discovery.CachedDiscoveryInterface, error) {
	if err := c.needSource(); err != nil {
		return nil, err
	}
	return c.source.Discovery(), nil
}

// RESTMapper maps names to resources as kubectl does, over the source's
// discovery, with short names.
func (c *Catalog) RESTMapper() (meta.RESTMapper, error) {
	if err := c.needSource(); err != nil {
		return nil, err
	}
	return c.mapper, nil
}

// refreshingStale runs lookup, and once more with fresh discovery when it
// found nothing and discovery came from a cache (a CRD created, deleted or
// given other versions since the cache was written).
func (c *Catalog) refreshingStale(lookup func() error) error {
	err := lookup()
	var nc *notCustom
	var ns *notServed
	stale := errors.As(err, &nc) || errors.As(err, &ns) || meta.IsNoMatchError(err) || apierrors.IsNotFound(err) || isNoResourceType(err)
	if !stale {
		return err
	}
	if dc := c.source.Discovery(); !dc.Fresh() {
		dc.Invalidate()
		c.mapper.Reset()
		return lookup()
	}
	return err
}
