package catalog

import (
	"fmt"
	"sort"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	endpointsdiscovery "k8s.io/apiserver/pkg/endpoints/discovery"
	"k8s.io/client-go/discovery"
)

// Names returns the names a CRD is served under: the accepted names where
// the server has accepted them, else the names it asks for.
func Names(crd *apiextensionsv1.CustomResourceDefinition) apiextensionsv1.CustomResourceDefinitionNames {
	if crd.Status.AcceptedNames.Plural != "" {
		return crd.Status.AcceptedNames
	}
	return crd.Spec.Names
}

// DiscoveryDocuments returns the discovery documents an API server serves for
// crds: the groups in the order of aggregated discovery (all CRD groups have
// the same priority, so by name), each group's versions highest first
// (Kubernetes version ordering), and one resource list per group version.
func DiscoveryDocuments(crds []*apiextensionsv1.CustomResourceDefinition) (*metav1.APIGroupList, []*metav1.APIResourceList) {
	versions := map[string]map[string]bool{}
	resources := map[schema.GroupVersion][]metav1.APIResource{}
	for _, crd := range crds {
		group := crd.Spec.Group
		names := Names(crd)
		namespaced := crd.Spec.Scope == apiextensionsv1.NamespaceScoped
		storageHash := ""
		if storage, err := apihelpers.GetCRDStorageVersion(crd); err == nil {
			storageHash = endpointsdiscovery.StorageVersionHash(group, storage, names.Kind)
		}
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			if versions[group] == nil {
				versions[group] = map[string]bool{}
			}
			versions[group][v.Name] = true
			gv := schema.GroupVersion{Group: group, Version: v.Name}
			resources[gv] = append(resources[gv], metav1.APIResource{
				Name:               names.Plural,
				SingularName:       names.Singular,
				Namespaced:         namespaced,
				Kind:               names.Kind,
				Verbs:              metav1.Verbs{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"},
				ShortNames:         names.ShortNames,
				Categories:         names.Categories,
				StorageVersionHash: storageHash,
			})
			sub, _ := apihelpers.GetSubresourcesForVersion(crd, v.Name)
			if sub != nil && sub.Status != nil {
				resources[gv] = append(resources[gv], metav1.APIResource{
					Name: names.Plural + "/status", Namespaced: namespaced, Kind: names.Kind,
					Verbs: metav1.Verbs{"get", "patch", "update"},
				})
			}
			if sub != nil && sub.Scale != nil {
				resources[gv] = append(resources[gv], metav1.APIResource{
					Group: "autoscaling", Version: "v1", Kind: "Scale",
					Name: names.Plural + "/scale", Namespaced: namespaced,
					Verbs: metav1.Verbs{"get", "patch", "update"},
				})
			}
		}
	}

	groupNames := make([]string, 0, len(versions))
	for g := range versions {
		groupNames = append(groupNames, g)
	}
	sort.Strings(groupNames)

	groups := &metav1.APIGroupList{}
	var lists []*metav1.APIResourceList
	for _, g := range groupNames {
		group := metav1.APIGroup{Name: g}
		for _, v := range sortedVersions(versions[g]) {
			gv := schema.GroupVersion{Group: g, Version: v}
			group.Versions = append(group.Versions, metav1.GroupVersionForDiscovery{GroupVersion: gv.String(), Version: v})
			lists = append(lists, &metav1.APIResourceList{GroupVersion: gv.String(), APIResources: resources[gv]})
		}
		group.PreferredVersion = group.Versions[0]
		groups.Groups = append(groups.Groups, group)
	}
	return groups, lists
}

func sortedVersions(set map[string]bool) []string {
	vs := make([]string, 0, len(set))
	for v := range set {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return version.CompareKubeAwareVersionStrings(vs[i], vs[j]) > 0 })
	return vs
}

// memoryDiscovery answers discovery from documents held in memory. Only the
// calls that RESTMappers and expanders make are answered; the embedded nil
// interface makes any other call fail loudly in tests.
type memoryDiscovery struct {
	discovery.DiscoveryInterface
	groups    *metav1.APIGroupList
	resources []*metav1.APIResourceList
}

var _ discovery.CachedDiscoveryInterface = &memoryDiscovery{}

func newMemoryDiscovery(crds []*apiextensionsv1.CustomResourceDefinition) *memoryDiscovery {
	groups, resources := DiscoveryDocuments(crds)
	return &memoryDiscovery{groups: groups, resources: resources}
}

func (d *memoryDiscovery) ServerGroups() (*metav1.APIGroupList, error) {
	return d.groups, nil
}

func (d *memoryDiscovery) ServerGroupsAndResources() ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	groups := make([]*metav1.APIGroup, len(d.groups.Groups))
	for i := range d.groups.Groups {
		groups[i] = &d.groups.Groups[i]
	}
	return groups, d.resources, nil
}

func (d *memoryDiscovery) ServerResourcesForGroupVersion(groupVersion string) (*metav1.APIResourceList, error) {
	for _, l := range d.resources {
		if l.GroupVersion == groupVersion {
			return l, nil
		}
	}
	return nil, fmt.Errorf("the server could not find the requested resource (group version %q)", groupVersion)
}

func (d *memoryDiscovery) ServerPreferredResources() ([]*metav1.APIResourceList, error) {
	return discovery.ServerPreferredResources(d)
}

func (d *memoryDiscovery) Fresh() bool { return true }
func (d *memoryDiscovery) Invalidate() {}

// PreferredVersion is the served version of a CRD that discovery puts
// first among the CRD's own: the highest in Kubernetes' version order (""
// when none is served).
func PreferredVersion(crd *apiextensionsv1.CustomResourceDefinition) string {
	served := map[string]bool{}
	for _, v := range crd.Spec.Versions {
		if v.Served {
			served[v.Name] = true
		}
	}
	if vs := sortedVersions(served); len(vs) > 0 {
		return vs[0]
	}
	return ""
}
