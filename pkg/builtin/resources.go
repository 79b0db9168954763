package builtin

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	// The API groups kube-apiserver installs into its scheme, as
	// k8s.io/kubernetes/pkg/controlplane imports them.
	_ "k8s.io/kubernetes/pkg/apis/admission/install"
	_ "k8s.io/kubernetes/pkg/apis/admissionregistration/install"
	_ "k8s.io/kubernetes/pkg/apis/apiserverinternal/install"
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/authentication/install"
	_ "k8s.io/kubernetes/pkg/apis/authorization/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/certificates/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/discovery/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/extensions/install"
	_ "k8s.io/kubernetes/pkg/apis/flowcontrol/install"
	_ "k8s.io/kubernetes/pkg/apis/imagepolicy/install"
	_ "k8s.io/kubernetes/pkg/apis/lifecycle/install"
	_ "k8s.io/kubernetes/pkg/apis/networking/install"
	_ "k8s.io/kubernetes/pkg/apis/node/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"
	_ "k8s.io/kubernetes/pkg/apis/resource/install"
	_ "k8s.io/kubernetes/pkg/apis/scheduling/install"
	_ "k8s.io/kubernetes/pkg/apis/storage/install"
	_ "k8s.io/kubernetes/pkg/apis/storagemigration/install"

	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/mutatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/resolver"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicy"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingadmissionpolicybinding"
	"k8s.io/kubernetes/pkg/registry/admissionregistration/validatingwebhookconfiguration"
	"k8s.io/kubernetes/pkg/registry/apps/controllerrevision"
	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	"k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/replicaset"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	"k8s.io/kubernetes/pkg/registry/batch/cronjob"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/certificates/certificates"
	"k8s.io/kubernetes/pkg/registry/certificates/clustertrustbundle"
	"k8s.io/kubernetes/pkg/registry/certificates/podcertificaterequest"
	"k8s.io/kubernetes/pkg/registry/coordination/lease"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/endpoint"
	"k8s.io/kubernetes/pkg/registry/core/event"
	"k8s.io/kubernetes/pkg/registry/core/limitrange"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/node"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolume"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/pod"
	"k8s.io/kubernetes/pkg/registry/core/podtemplate"
	"k8s.io/kubernetes/pkg/registry/core/replicationcontroller"
	"k8s.io/kubernetes/pkg/registry/core/resourcequota"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	"k8s.io/kubernetes/pkg/registry/discovery/endpointslice"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/flowschema"
	"k8s.io/kubernetes/pkg/registry/flowcontrol/prioritylevelconfiguration"
	"k8s.io/kubernetes/pkg/registry/networking/ingress"
	"k8s.io/kubernetes/pkg/registry/networking/ingressclass"
	"k8s.io/kubernetes/pkg/registry/networking/ipaddress"
	"k8s.io/kubernetes/pkg/registry/networking/networkpolicy"
	"k8s.io/kubernetes/pkg/registry/networking/servicecidr"
	"k8s.io/kubernetes/pkg/registry/node/runtimeclass"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrole"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrolebinding"
	"k8s.io/kubernetes/pkg/registry/rbac/role"
	"k8s.io/kubernetes/pkg/registry/rbac/rolebinding"
	"k8s.io/kubernetes/pkg/registry/resource/deviceclass"
	"k8s.io/kubernetes/pkg/registry/resource/devicetaintrule"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaim"
	"k8s.io/kubernetes/pkg/registry/resource/resourceclaimtemplate"
	"k8s.io/kubernetes/pkg/registry/resource/resourceslice"
	"k8s.io/kubernetes/pkg/registry/scheduling/priorityclass"
	"k8s.io/kubernetes/pkg/registry/storage/csidriver"
	"k8s.io/kubernetes/pkg/registry/storage/csinode"
	"k8s.io/kubernetes/pkg/registry/storage/csistoragecapacity"
	"k8s.io/kubernetes/pkg/registry/storage/storageclass"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattachment"
	"k8s.io/kubernetes/pkg/registry/storage/volumeattributesclass"
	"k8s.io/kubernetes/pkg/registry/storagemigration/storagemigration"

	"k8s.io/kube-aggregator/pkg/registry/apiservice"
)

// Strategy is what a registry strategy is to creates and updates.
type Strategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

// resource is one resource kube-apiserver serves: its kind, the versions
// it serves by default, the strategy of its registry (nil for the
// resources that are answered, not stored) and the scheme its objects are
// read with.
type resource struct {
	gr       schema.GroupResource
	kind     string
	versions []string
	strategy Strategy
	scheme   *scheme
	// begin is what the resource's REST storage does to an object before
	// the strategy sees it (old is nil on a create); nil for most.
	begin func(obj, old runtime.Object)
}

// resources lists every resource kube-apiserver serves by default, with
// the strategy its REST storage uses for creates and updates
// (k8s.io/kubernetes/pkg/registry/*/*/storage); reviews (TokenReview,
// SubjectAccessReview, ...) and bindings are answered, not stored, and
// have none. CustomResourceDefinition (checked as CRDs) is not here;
// APIService is kube-aggregator's, read with its scheme. The list is
// checked against a kube-apiserver's discovery by the end-to-end tests.
//
// Strategies that take arguments get those that switch off what is the
// cluster's to decide: no authorizer (authorization belongs to the cluster,
// as admission does), and namespaces read through namespaces.
// unresolved is the resource resolver of the policy binding strategies:
// they resolve a paramKind only to authorize reading it, which is the
// cluster's (no authorizer is given, so it is never called); a nil one
// refuses every binding with a paramRef as an internal error.
var unresolved = resolver.ResourceResolverFunc(func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	return schema.GroupVersionResource{}, fmt.Errorf("%s: paramKind access is authorized by the cluster", gvk)
})

func resources(namespaces corev1client.NamespaceInterface, kube, aggregator *scheme) []resource {
	core := func(r, kind string, s Strategy) resource {
		return resource{gr: schema.GroupResource{Resource: r}, kind: kind, versions: []string{"v1"}, strategy: s, scheme: kube}
	}
	v1 := func(group, r, kind string, s Strategy) resource {
		return resource{gr: schema.GroupResource{Group: group, Resource: r}, kind: kind, versions: []string{"v1"}, strategy: s, scheme: kube}
	}
	const (
		admission   = "admissionregistration.k8s.io"
		certs       = "certificates.k8s.io"
		flowcontrol = "flowcontrol.apiserver.k8s.io"
		networking  = "networking.k8s.io"
		rbac        = "rbac.authorization.k8s.io"
		dra         = "resource.k8s.io"
		storage     = "storage.k8s.io"
	)
	services := core("services", "Service", service.Strategy)
	services.begin = syncClusterIPs
	return []resource{
		core("configmaps", "ConfigMap", configmap.Strategy),
		core("endpoints", "Endpoints", endpoint.Strategy),
		core("events", "Event", event.Strategy),
		core("limitranges", "LimitRange", limitrange.Strategy),
		core("namespaces", "Namespace", namespace.Strategy),
		core("nodes", "Node", node.Strategy),
		core("persistentvolumeclaims", "PersistentVolumeClaim", persistentvolumeclaim.Strategy),
		core("persistentvolumes", "PersistentVolume", persistentvolume.Strategy),
		core("pods", "Pod", pod.Strategy),
		core("podtemplates", "PodTemplate", podtemplate.Strategy),
		core("replicationcontrollers", "ReplicationController", replicationcontroller.Strategy),
		core("resourcequotas", "ResourceQuota", resourcequota.Strategy),
		core("secrets", "Secret", secret.Strategy),
		core("serviceaccounts", "ServiceAccount", serviceaccount.Strategy),
		services,

		v1(admission, "mutatingadmissionpolicies", "MutatingAdmissionPolicy", mutatingadmissionpolicy.NewStrategy(nil, nil)),
		v1(admission, "mutatingadmissionpolicybindings", "MutatingAdmissionPolicyBinding", mutatingadmissionpolicybinding.NewStrategy(nil, nil, unresolved)),
		v1(admission, "mutatingwebhookconfigurations", "MutatingWebhookConfiguration", mutatingwebhookconfiguration.Strategy),
		v1(admission, "validatingadmissionpolicies", "ValidatingAdmissionPolicy", validatingadmissionpolicy.NewStrategy(nil, nil)),
		v1(admission, "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", validatingadmissionpolicybinding.NewStrategy(nil, nil, unresolved)),
		v1(admission, "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", validatingwebhookconfiguration.Strategy),

		v1("apps", "controllerrevisions", "ControllerRevision", controllerrevision.Strategy),
		v1("apps", "daemonsets", "DaemonSet", daemonset.Strategy),
		v1("apps", "deployments", "Deployment", deployment.Strategy),
		v1("apps", "replicasets", "ReplicaSet", replicaset.Strategy),
		v1("apps", "statefulsets", "StatefulSet", statefulset.Strategy),

		{gr: schema.GroupResource{Group: "autoscaling", Resource: "horizontalpodautoscalers"}, kind: "HorizontalPodAutoscaler", versions: []string{"v1", "v2"}, strategy: horizontalpodautoscaler.Strategy, scheme: kube},

		v1("batch", "cronjobs", "CronJob", cronjob.Strategy),
		v1("batch", "jobs", "Job", job.Strategy),

		v1(certs, "certificatesigningrequests", "CertificateSigningRequest", certificates.Strategy),
		v1(certs, "clustertrustbundles", "ClusterTrustBundle", clustertrustbundle.Strategy),
		v1(certs, "podcertificaterequests", "PodCertificateRequest", podcertificaterequest.NewStrategy()),

		v1("coordination.k8s.io", "leases", "Lease", lease.Strategy),
		v1("discovery.k8s.io", "endpointslices", "EndpointSlice", endpointslice.Strategy),
		v1("events.k8s.io", "events", "Event", event.Strategy),

		v1(flowcontrol, "flowschemas", "FlowSchema", flowschema.Strategy),
		v1(flowcontrol, "prioritylevelconfigurations", "PriorityLevelConfiguration", prioritylevelconfiguration.Strategy),

		v1(networking, "ingressclasses", "IngressClass", ingressclass.Strategy),
		v1(networking, "ingresses", "Ingress", ingress.Strategy),
		v1(networking, "ipaddresses", "IPAddress", ipaddress.Strategy),
		v1(networking, "networkpolicies", "NetworkPolicy", networkpolicy.Strategy),
		v1(networking, "servicecidrs", "ServiceCIDR", servicecidr.Strategy),

		v1("node.k8s.io", "runtimeclasses", "RuntimeClass", runtimeclass.Strategy),
		v1("policy", "poddisruptionbudgets", "PodDisruptionBudget", poddisruptionbudget.Strategy),

		v1(rbac, "clusterrolebindings", "ClusterRoleBinding", clusterrolebinding.Strategy),
		v1(rbac, "clusterroles", "ClusterRole", clusterrole.Strategy),
		v1(rbac, "rolebindings", "RoleBinding", rolebinding.Strategy),
		v1(rbac, "roles", "Role", role.Strategy),

		v1(dra, "deviceclasses", "DeviceClass", deviceclass.Strategy),
		v1(dra, "devicetaintrules", "DeviceTaintRule", devicetaintrule.Strategy),
		v1(dra, "resourceclaims", "ResourceClaim", resourceclaim.NewStrategy(namespaces, nil)),
		v1(dra, "resourceclaimtemplates", "ResourceClaimTemplate", resourceclaimtemplate.NewStrategy(namespaces)),
		v1(dra, "resourceslices", "ResourceSlice", resourceslice.Strategy),

		v1("scheduling.k8s.io", "priorityclasses", "PriorityClass", priorityclass.Strategy),

		v1(storage, "csidrivers", "CSIDriver", csidriver.Strategy),
		v1(storage, "csinodes", "CSINode", csinode.Strategy),
		v1(storage, "csistoragecapacities", "CSIStorageCapacity", csistoragecapacity.Strategy),
		v1(storage, "storageclasses", "StorageClass", storageclass.Strategy),
		v1(storage, "volumeattachments", "VolumeAttachment", volumeattachment.Strategy),
		v1(storage, "volumeattributesclasses", "VolumeAttributesClass", volumeattributesclass.Strategy),

		v1("storagemigration.k8s.io", "storageversionmigrations", "StorageVersionMigration", storagemigration.Strategy),

		{gr: schema.GroupResource{Group: "apiregistration.k8s.io", Resource: "apiservices"}, kind: "APIService", versions: []string{"v1"}, strategy: apiservice.NewStrategy(aggregator.Scheme), scheme: aggregator},

		core("bindings", "Binding", nil),
		core("componentstatuses", "ComponentStatus", nil),
		v1("authentication.k8s.io", "selfsubjectreviews", "SelfSubjectReview", nil),
		v1("authentication.k8s.io", "tokenreviews", "TokenReview", nil),
		v1("authorization.k8s.io", "localsubjectaccessreviews", "LocalSubjectAccessReview", nil),
		v1("authorization.k8s.io", "selfsubjectaccessreviews", "SelfSubjectAccessReview", nil),
		v1("authorization.k8s.io", "selfsubjectrulesreviews", "SelfSubjectRulesReview", nil),
		v1("authorization.k8s.io", "subjectaccessreviews", "SubjectAccessReview", nil),
	}
}
