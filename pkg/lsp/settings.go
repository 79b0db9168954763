package lsp

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/kubectl-crd/kubectl-crd/pkg/lint"
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
	// Lint is the lint profile of the findings shown on CRDs (crd, the
	// default, or kube), or off.
	Lint string `json:"lint,omitempty"`
	// KubernetesVersion is the version answered as, as
	// --kubernetes-version gives it ("": the cluster's, else the newest).
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
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
		Lint        *string   `json:"lint"`
		KubeVersion *string   `json:"kubernetesVersion"`
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
	if next.Lint != nil {
		if *next.Lint != "off" {
			if err := lint.CheckOptions(lint.Options{Profile: *next.Lint}); err != nil {
				return fmt.Errorf("settings: lint: %w (or off)", err)
			}
		}
		s.Lint = *next.Lint
	}
	if next.KubeVersion != nil {
		s.KubernetesVersion = *next.KubeVersion
	}
	return nil
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
