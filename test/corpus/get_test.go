package corpus

import (
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestGetMatchesKubectl lists every served version of every corpus CRD,
// with and without -o wide, through kubectl get (server-side Tables) and
// kubectl crd get (client-side), and compares the outputs.
func TestGetMatchesKubectl(t *testing.T) {
	needCorpus(t)
	names := make([]string, 0, len(projects))
	for p := range projects {
		names = append(names, p)
	}
	sort.Strings(names)
	// One discovery cache for every run: both binaries read it the same way.
	env := []string{"KUBECACHEDIR=" + t.TempDir()}
	for _, project := range names {
		t.Run(project, func(t *testing.T) {
			for _, types := range typeLists(projects[project]) {
				for _, extra := range [][]string{{"-A"}, {"-A", "-o", "wide"}} {
					args := append([]string{"get", types}, extra...)
					want := bin.Run(t, "kubectl", env, args...)
					got := bin.Run(t, "kubectl-crd", env, args...)
					harness.Compare(t, got, want)
				}
			}
		})
	}
}

// typeLists returns comma-separated lists of plural.version.group: the
// first holds every CRD's first served version, the next the second, and
// so on, so that every served version is listed once.
func typeLists(crds []*apiextensionsv1.CustomResourceDefinition) []string {
	var lists [][]string
	for _, crd := range crds {
		i := 0
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			if i == len(lists) {
				lists = append(lists, nil)
			}
			lists[i] = append(lists[i], crd.Spec.Names.Plural+"."+v.Name+"."+crd.Spec.Group)
			i++
		}
	}
	out := make([]string, len(lists))
	for i, l := range lists {
		out[i] = strings.Join(l, ",")
	}
	return out
}
