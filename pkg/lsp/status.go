package lsp

import (
	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
)

// MethodStatus is the notification of the server's state, sent to a
// client that asks for it (the experimental client capability
// "kubectl-crd/status": true), such as the VS Code extension, which shows
// it in the status bar. Other clients get none.
const MethodStatus = "kubectl-crd/status"

// Status is the server's state: "checking" a document, "ready" (the last
// check ran: answered as KubernetesVersion, with a cluster or offline), or
// "error" (the last check could not run: Message says why).
type Status struct {
	State             string `json:"state"`
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	Online            bool   `json:"online"`
	Message           string `json:"message,omitempty"`
}

// status tells the client the state, when it asked for it.
func (s *Server) status(st Status) {
	s.mu.Lock()
	wants := s.wantsStatus
	s.mu.Unlock()
	if wants {
		s.notify(MethodStatus, st)
	}
}

// checked is the status after a check: the environment's when it was
// made, else the error that kept it from being made.
func (s *Server) checked(told string) Status {
	s.mu.Lock()
	env := s.env
	s.mu.Unlock()
	if told != "" || env == nil {
		return Status{State: "error", Message: told}
	}
	return Status{State: "ready", KubernetesVersion: kubeversion.OrNewest(env.Options.KubernetesVersion).String(),
		Online: env.Online()}
}
