package builtin

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime"
	api "k8s.io/kubernetes/pkg/apis/core"
)

// syncClusterIPs makes a Service's clusterIP and clusterIPs agree as the
// Service's REST storage does before its strategy validates
// (k8s.io/kubernetes/pkg/registry/core/service/storage, the begin-create
// and begin-update hooks, which the package does not export). Without it a
// headless Service written with clusterIP alone would be refused for a
// missing clusterIPs, and a changed clusterIP would be reported at
// spec.clusterIPs where the server reports spec.clusterIPs[0]. The IPs and
// node ports those hooks allocate are the cluster's and not chosen here.
func syncClusterIPs(obj, old runtime.Object) {
	svc := obj.(*api.Service)
	if old == nil {
		// A create: the singular alone (an old client, a headless
		// Service) stands for the plural.
		if svc.Spec.ClusterIP != "" && len(svc.Spec.ClusterIPs) == 0 {
			svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		}
		return
	}
	was := old.(*api.Service)
	external := func(s *api.Service) bool { return s.Spec.Type == api.ServiceTypeExternalName }
	// What the server allocated and the update leaves out is kept.
	if !external(was) && !external(svc) {
		if svc.Spec.ClusterIP == "" {
			svc.Spec.ClusterIP = was.Spec.ClusterIP
		}
		if len(svc.Spec.ClusterIPs) == 0 {
			svc.Spec.ClusterIPs = was.Spec.ClusterIPs
		}
	}
	// The plural dropped by a client that knows only the singular, which
	// it left as it was.
	if len(was.Spec.ClusterIPs) > 0 && len(svc.Spec.ClusterIPs) == 0 && was.Spec.ClusterIP == svc.Spec.ClusterIP {
		svc.Spec.ClusterIPs = was.Spec.ClusterIPs
	}
	// The singular changed and the plural left as it was: the plural
	// follows (cleared with it when the singular is cleared).
	if was.Spec.ClusterIP != svc.Spec.ClusterIP && slices.Equal(was.Spec.ClusterIPs, svc.Spec.ClusterIPs) {
		if svc.Spec.ClusterIP == "" {
			svc.Spec.ClusterIPs = nil
		} else {
			svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		}
	}
}
