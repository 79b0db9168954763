package convert

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"

	"github.com/kubectl-crd/kubectl-crd/internal/parallel"
	"github.com/kubectl-crd/kubectl-crd/pkg/pagedlist"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// Stored is what reading a CRD's stored objects through the server, at
// some of its versions, found.
type Stored struct {
	CRD      string   `json:"crd"`
	Versions []string `json:"versions"`
	// Objects is how many objects were found; Namespaces counts them by
	// namespace ("" for cluster-scoped ones).
	Objects    int            `json:"objects"`
	Namespaces map[string]int `json:"namespaces,omitempty"`
	// Failures are the objects the server could not return at a version,
	// with its message.
	Failures []ReadFailure `json:"failures"`
	// Incomplete, when set, says why some objects may not have been
	// found: no version lists them all, and the server names no object
	// in a failed list.
	Incomplete string `json:"incomplete,omitempty"`
}

// ReadFailure is an object the server failed to return at a version.
type ReadFailure struct {
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Version   string `json:"version"`
	Message   string `json:"message"`
}

// StoredOptions say which objects to read and how.
type StoredOptions struct {
	// Versions to read at (the storage version first is quickest: it
	// converts only the objects stored at other versions).
	Versions []string
	// PageSize is the size of a list page; Concurrency how many objects
	// are read at once when they are read one by one.
	PageSize    int64
	Concurrency int
	// Also are versions listed only to learn the objects' names, when no
	// version of Versions lists them all (a version objects are stored
	// at lists them without converting them).
	Also []string
	// Names, when set, are the only objects read, in Namespace (for a
	// namespaced CRD); else every object in every namespace.
	Names     []string
	Namespace string
}

// CheckStored reads the stored objects of crd at each version, through
// the server (only reads: the conversion runs in the server, with its
// webhook), and reports those it cannot return. A failed list names no
// object, so after one the objects it did not return are read one by one
// at that version; their names come from a version that lists them all.
func CheckStored(ctx context.Context, client dynamic.Interface, crd *apiextensionsv1.CustomResourceDefinition, opts StoredOptions) (*Stored, error) {
	r := &Stored{CRD: crd.Name, Versions: opts.Versions, Namespaces: map[string]int{}, Failures: []ReadFailure{}}
	resource := func(v string) dynamic.NamespaceableResourceInterface {
		return client.Resource(schema.GroupVersionResource{Group: crd.Spec.Group, Version: v, Resource: crd.Spec.Names.Plural})
	}
	namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
	c := &storedCheck{r: r, namespaced: namespaced, concurrency: max(opts.Concurrency, 1)}

	var all []objectKey // every object, once known
	if len(opts.Names) > 0 {
		for _, n := range opts.Names {
			k := objectKey{name: n}
			if namespaced {
				k.namespace = opts.Namespace
			}
			all = append(all, k)
		}
		for _, v := range opts.Versions {
			if err := c.readEach(ctx, resource(v), v, all, nil); err != nil {
				return nil, err
			}
		}
		r.count(all)
		return r, nil
	}

	listed := map[string]map[objectKey]bool{} // by version: the objects its list returned
	failed := map[string]error{}              // by version: why its list stopped
	for _, v := range opts.Versions {
		seen := map[objectKey]bool{}
		var order []objectKey
		err := pagedlist.Each(ctx, resource(v), opts.PageSize, func(page []unstructured.Unstructured) error {
			for i := range page {
				k := objectKey{namespace: page[i].GetNamespace(), name: page[i].GetName()}
				if !seen[k] {
					seen[k] = true
					order = append(order, k)
				}
			}
			return nil
		})
		listed[v] = seen
		switch {
		case err == nil:
			if all == nil {
				all = order
			}
		case isReadFailure(err):
			failed[v] = err
		default:
			return nil, err
		}
	}
	for _, v := range opts.Also {
		if all != nil {
			break
		}
		var order []objectKey
		err := pagedlist.Each(ctx, resource(v), opts.PageSize, func(page []unstructured.Unstructured) error {
			for i := range page {
				order = append(order, objectKey{namespace: page[i].GetNamespace(), name: page[i].GetName()})
			}
			return nil
		})
		switch {
		case err == nil:
			all = uniqueKeys(order)
		case !isReadFailure(err):
			return nil, err
		}
	}
	if all == nil && len(opts.Versions) > 0 {
		// No version lists every object: read one by one those that some
		// version listed.
		union := map[objectKey]bool{}
		for _, v := range opts.Versions {
			for k := range listed[v] {
				if !union[k] {
					union[k] = true
					all = append(all, k)
				}
			}
		}
		sortKeys(all)
		v := opts.Versions[0]
		r.Incomplete = fmt.Sprintf("no version lists every object (at %s: %v); the server names no object in a failed list, so objects that no version lists are not counted here", v, failed[v])
	}
	for _, v := range opts.Versions {
		if failed[v] != nil {
			if err := c.readEach(ctx, resource(v), v, all, listed[v]); err != nil {
				return nil, err
			}
		}
	}
	r.count(all)
	return r, nil
}

type objectKey struct{ namespace, name string }

type storedCheck struct {
	r           *Stored
	namespaced  bool
	concurrency int
	mu          sync.Mutex
}

// readEach gets each object of keys not in done at version v, adding
// those the server fails to return to the failures.
func (c *storedCheck) readEach(ctx context.Context, ri dynamic.NamespaceableResourceInterface, v string, keys []objectKey, done map[objectKey]bool) error {
	var todo []objectKey
	for _, k := range keys {
		if !done[k] {
			todo = append(todo, k)
		}
	}
	var firstErr error
	parallel.On(c.concurrency, len(todo), func(i int) {
		k := todo[i]
		var client dynamic.ResourceInterface = ri
		if c.namespaced {
			client = ri.Namespace(k.namespace)
		}
		_, err := client.Get(ctx, k.name, metav1.GetOptions{})
		c.mu.Lock()
		defer c.mu.Unlock()
		switch {
		case err == nil, apierrors.IsNotFound(err) && done != nil: // deleted since it was listed
		case isReadFailure(err):
			c.r.Failures = append(c.r.Failures, ReadFailure{Namespace: k.namespace, Name: k.name, Version: v, Message: err.Error()})
		default:
			if firstErr == nil {
				firstErr = err
			}
		}
	})
	sort.Slice(c.r.Failures, func(i, j int) bool {
		a, b := c.r.Failures[i], c.r.Failures[j]
		if a.Version != b.Version {
			return a.Version < b.Version
		}
		return objectKey{a.Namespace, a.Name}.less(objectKey{b.Namespace, b.Name})
	})
	return firstErr
}

func (r *Stored) count(keys []objectKey) {
	r.Objects = len(keys)
	for _, k := range keys {
		r.Namespaces[k.namespace]++
	}
}

// isReadFailure tells whether the server answered that it could not
// return an object (a failed conversion, an object that does not
// decode): a 500, as the server reports a failed decode or conversion,
// not a refusal or a fault on the way.
func isReadFailure(err error) bool {
	var status apierrors.APIStatus
	return errors.As(err, &status) && status.Status().Code == http.StatusInternalServerError
}

func (a objectKey) less(b objectKey) bool {
	if a.namespace != b.namespace {
		return a.namespace < b.namespace
	}
	return a.name < b.name
}

func sortKeys(keys []objectKey) {
	sort.Slice(keys, func(i, j int) bool { return keys[i].less(keys[j]) })
}

// uniqueKeys drops repeats (a list that started again after a 410).
func uniqueKeys(keys []objectKey) []objectKey {
	seen := map[objectKey]bool{}
	out := keys[:0]
	for _, k := range keys {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	return out
}
