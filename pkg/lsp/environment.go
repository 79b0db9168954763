package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Settings are what the client may set (initializationOptions, or
// workspace/didChangeConfiguration, either as they are or under
// "kubectl-crd"): where CRDs come from.
type Settings struct {
	// CRDs are files and directories of CRDs (relative to the workspace
	// folder); none: the cluster's.
	CRDs []string `json:"crds,omitempty"`
	// Offline: no cluster at all (CRDs from CRDs and the documents only).
	Offline bool `json:"offline,omitempty"`
	// Context is the kubeconfig context of the cluster ("": the current).
	Context string `json:"context,omitempty"`
	// Policies are files and directories of admission policies, their
	// bindings, params and namespaces (relative to the workspace folder):
	// documents are checked through them, as validate --policies does.
	Policies []string `json:"policies,omitempty"`
	// CostWarning is the share of a CEL cost limit (per rule, or per
	// CRD) at which a rule gets an information diagnostic, in percent
	// (0: 50; negative: never).
	CostWarning int `json:"costWarning,omitempty"`
}

// merge takes the settings raw gives (nil: none) over s's.
func (s *Settings) merge(raw any) error {
	if raw == nil {
		return nil
	}
	data, err := json.Marshal(raw)
	if err != nil {
		return err
	}
	var nested map[string]json.RawMessage
	if json.Unmarshal(data, &nested) == nil {
		if inner, ok := nested["kubectl-crd"]; ok {
			data = inner
		}
	}
	var next struct {
		CRDs        *[]string `json:"crds"`
		Offline     *bool     `json:"offline"`
		Context     *string   `json:"context"`
		CostWarning *int      `json:"costWarning"`
		Policies    *[]string `json:"policies"`
	}
	if err := json.Unmarshal(data, &next); err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	if next.CRDs != nil {
		s.CRDs = *next.CRDs
	}
	if next.Offline != nil {
		s.Offline = *next.Offline
	}
	if next.Context != nil {
		s.Context = *next.Context
	}
	if next.CostWarning != nil {
		s.CostWarning = *next.CostWarning
	}
	if next.Policies != nil {
		s.Policies = *next.Policies
	}
	return nil
}

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

// absolute makes the settings' paths absolute, from root.
func (s Settings) absolute(root string) Settings {
	out := s
	out.CRDs, out.Policies = inRoot(s.CRDs, root), inRoot(s.Policies, root)
	return out
}

// inRoot makes the relative paths of paths relative to root.
func inRoot(paths []string, root string) []string {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) && p != "-" && root != "" {
			p = filepath.Join(root, p)
		}
		out = append(out, p)
	}
	return out
}
