package builtin

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
)

// servedAt keeps of r's default versions those kube-apiserver serves when
// it answers as Kubernetes at: a kind is served from the release its
// version was introduced in (its k8s:prerelease-lifecycle-gen tags) until
// the release it is removed in. That is the rule of the server's
// ResourceExpirationEvaluator (k8s.io/apiserver/pkg/server), applied here to
// the same generated lifecycle of each versioned type: that package would
// link the whole generic API server into the plugin. The end-to-end tests
// compare the result with the discovery of servers emulating each version.
func servedAt(r resource, at *version.Version) []string {
	var out []string
	for _, v := range r.versions {
		obj, err := r.scheme.New(schema.GroupVersionKind{Group: r.gr.Group, Version: v, Kind: r.kind})
		if err != nil {
			out = append(out, v) // not a stored kind: served as listed
			continue
		}
		if o, ok := obj.(interface{ APILifecycleIntroduced() (int, int) }); ok {
			if major, minor := o.APILifecycleIntroduced(); at.LessThan(version.MajorMinor(uint(major), uint(minor))) {
				continue
			}
		}
		if o, ok := obj.(interface{ APILifecycleRemoved() (int, int) }); ok {
			if major, minor := o.APILifecycleRemoved(); !at.LessThan(version.MajorMinor(uint(major), uint(minor))) {
				continue
			}
		}
		out = append(out, v)
	}
	return out
}
