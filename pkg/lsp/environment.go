package lsp

import (
	"bytes"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Setup makes the validate.Environment of the settings (with CRD paths made
// absolute). It does not contact a cluster: the catalog asks it when a
// check needs it.
type Setup func(Settings) (*validate.Environment, error)

// environment is an Environment in use: the checks' shared cache, the
// CRDs they found (for hover and completion, which never wait for the
// catalog or a cluster), and the CRD files' state when it was made.
type environment struct {
	*validate.Environment
	cache *validate.Cache

	mu    sync.Mutex
	known map[schema.GroupKind]*catalog.CRD

	files   map[string]time.Time // the CRD files and their modification times
	checked time.Time            // when files were last compared with the disk
}

func newEnvironment(e *validate.Environment, crdPaths []string) *environment {
	env := &environment{Environment: e, cache: validate.NewCache(), known: map[schema.GroupKind]*catalog.CRD{}}
	env.files = stamps(crdPaths)
	env.checked = time.Now()
	return env
}

// documentCache is the cache of a document with CRDs in it: the same as
// long as they are, a new one when they change.
func (s *Server) documentCache(doc *document, crds []*catalog.CRD) *validate.Cache {
	var key bytes.Buffer
	kinds := map[schema.GroupKind]*catalog.CRD{}
	for _, c := range crds {
		spec, _ := c.CustomResourceDefinition.Spec.Marshal()
		key.Write(spec)
		kinds[schema.GroupKind{Group: c.Spec.Group, Kind: c.Spec.Names.Kind}] = c
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	cur := s.docs[doc.uri]
	if cur == nil {
		cur = doc
	}
	if cur.cache == nil || cur.cacheFor != key.String() {
		cur.cache, cur.cacheFor = validate.NewCache(), key.String()
	}
	cur.crds = kinds
	return cur.cache
}

// current is the settings now, with absolute paths: configure may change
// them on another goroutine, under the lock.
func (s *Server) current() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.settings.absolute(s.root)
}

// crdFilesChanged tells whether the environment's CRD files changed on
// disk; the environment is then made again when next needed.
func (s *Server) crdFilesChanged() bool {
	s.mu.Lock()
	settings := s.settings.absolute(s.root)
	env := s.env
	s.mu.Unlock()
	if env == nil || !env.stale(settings.CRDs) {
		return false
	}
	s.mu.Lock()
	if s.env == env {
		s.env = nil
	} else {
		env = nil // replaced already, and closed by whoever did
	}
	s.mu.Unlock()
	env.close()
	return true
}

// environment is the environment of the checks, made when first needed
// and again when the settings or the CRD files change.
func (s *Server) environment() (*environment, error) {
	s.mu.Lock()
	settings := s.settings.absolute(s.root)
	env := s.env
	s.mu.Unlock()
	if env != nil && !env.stale(settings.CRDs) {
		return env, nil
	}
	if s.opts.Setup == nil {
		return nil, fmt.Errorf("no setup")
	}
	e, err := s.opts.Setup(settings)
	if err != nil {
		return nil, err
	}
	env = newEnvironment(e, settings.CRDs)
	s.mu.Lock()
	old := s.env
	s.env = env
	s.mu.Unlock()
	old.close()
	return env, nil
}

// close stops what an environment that is replaced runs: its admission
// plugins and their informers. A check still using them answers from
// what they had.
func (e *environment) close() {
	if e != nil {
		e.Options.Admission.Close()
	}
}

// stamps are the modification times of the files of paths (a path that
// is not a local file, such as a URL or a git revision, has none: it is
// read again only when the settings change).
func stamps(paths []string) map[string]time.Time {
	out := map[string]time.Time{}
	for _, p := range paths {
		files, err := manifest.Files([]string{p}, true)
		if err != nil {
			continue
		}
		for _, f := range files {
			if st, err := os.Stat(f); err == nil {
				out[f] = st.ModTime()
			}
		}
	}
	return out
}

// stale tells whether a CRD file changed, appeared or went away since the
// environment was made (compared with the disk at most once a second).
func (e *environment) stale(crdPaths []string) bool {
	if len(crdPaths) == 0 || time.Since(e.checked) < time.Second {
		return false
	}
	e.checked = time.Now()
	now := stamps(crdPaths)
	if len(now) != len(e.files) {
		return true
	}
	for f, t := range now {
		if was, ok := e.files[f]; !ok || !was.Equal(t) {
			return true
		}
	}
	return false
}

// remember keeps a CRD the checks found.
func (e *environment) remember(crd *catalog.CRD) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.known[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = crd
}

// lookup is a CRD the checks found, or nil.
func (e *environment) lookup(gk schema.GroupKind) *catalog.CRD {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.known[gk]
}

// all are the CRDs the checks found.
func (e *environment) all() []*apiextensionsv1.CustomResourceDefinition {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]*apiextensionsv1.CustomResourceDefinition, 0, len(e.known))
	for _, c := range e.known {
		out = append(out, c.CustomResourceDefinition)
	}
	return out
}
