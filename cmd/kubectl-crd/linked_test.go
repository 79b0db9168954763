package main

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// Every package the program links initialises when it starts, whatever
// the command, so a test helper imported by mistake costs every user. The
// release must not link test utilities, fake clients or other programs'
// main packages; these prefixes name them.
var deniedPrefixes = []string{
	"testing",
	"net/http/httptest",
	"net/http/pprof", // serves profiles on import; --profile writes files
	"github.com/stretchr/testify/",
	"github.com/onsi/",
	"go.etcd.io/etcd/server/",
	"go.etcd.io/etcd/tests/",
	"k8s.io/kubernetes/cmd/",
	"k8s.io/kubernetes/test/",
	"k8s.io/apiextensions-apiserver/test/",
	"k8s.io/apiserver/pkg/storage/testing",
	"k8s.io/kubectl/pkg/cmd/testing",
	// kubectl's explain command: its help texts and templates are built
	// when it initialises; explain prints through k8s.io/kubectl/pkg/explain/v2.
	"k8s.io/kubectl/pkg/cmd/explain",
	"github.com/kubectl-crd/kubectl-crd/test/",
	// Helm's chartutil (and v4's chart/common), which its template engine
	// needs, add apiextensions.k8s.io to client-go's shared scheme when
	// the program starts; the API server's OpenAPI builder names
	// definitions from that scheme (see pkg/helmchart).
	"helm.sh/helm/v3/pkg/chartutil",
	"helm.sh/helm/v4/pkg/chart/common",
}

// deniedSegments are path elements that mark a test utility wherever it is.
var deniedSegments = []string{"fake", "testing", "testutil", "testrestmapper", "httptest", "envtest"}

// gateways are server and client-go packages that link test utilities of
// their own; what is reached only through them is allowed, because the
// answer needs the gateway itself (the same packages are in kube-apiserver).
var gateways = map[string]string{
	// The fake clientsets of its policy_test_context.go, a file that is not
	// a _test.go file; reached through k8s.io/kubernetes's validation of
	// ValidatingAdmissionPolicy and webhook configurations, which validate
	// runs for those built-in kinds.
	"k8s.io/apiserver/pkg/admission/plugin/policy/generic": "admission policy validation",
	// component-base's metrics testutil; reached through apiserver's
	// generic registry, which the local API server of get -f and test
	// serves custom resources with.
	"k8s.io/apiserver/pkg/util/flowcontrol/metrics": "the generic registry's request metrics",
	// validate --policies runs kube-apiserver's admission policy plugins,
	// which read their configuration through informers of a
	// kubernetes.Interface and a dynamic.Interface: client-go's fake
	// clientsets are their in-memory implementations (linked already
	// through the generic gateway above, so nothing more initialises).
	"github.com/kubectl-crd/kubectl-crd/pkg/policies": "admission policies' in-memory clients",
	// client-go/testing: every typed client is built from gentype, which
	// also builds the fake ones.
	"k8s.io/client-go/gentype": "every typed client",
}

func denied(pkg string) bool {
	for _, p := range deniedPrefixes {
		if pkg == strings.TrimSuffix(p, "/") || strings.HasPrefix(pkg, strings.TrimSuffix(p, "/")+"/") {
			return true
		}
	}
	return slices.ContainsFunc(strings.Split(pkg, "/"), func(s string) bool { return slices.Contains(deniedSegments, s) })
}

// TestLinksNoTestUtilities walks the import graph of the program as it is
// released, for each operating system it is released for, and fails on a
// denied package reached other than through a gateway (with the path of
// imports that brings it in), and on a gateway no longer reached (whose
// exception is then to be removed).
func TestLinksNoTestUtilities(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list over the whole build")
	}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		t.Run(goos, func(t *testing.T) {
			cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", ".")
			cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list: %v", err)
			}
			imports := map[string][]string{}
			var root string
			for line := range strings.Lines(string(out)) {
				f := strings.Fields(line)
				imports[f[0]] = f[1:]
				root = f[0] // go list -deps prints the named package last
			}
			// Breadth first from the program, not entering gateways, so that
			// the path printed is the shortest.
			via := map[string]string{root: ""}
			queue := []string{root}
			reachedGateways := map[string]bool{}
			for len(queue) > 0 {
				pkg := queue[0]
				queue = queue[1:]
				if _, ok := gateways[pkg]; ok {
					reachedGateways[pkg] = true
					continue
				}
				if denied(pkg) {
					chain := []string{pkg}
					for p := via[pkg]; p != ""; p = via[p] {
						chain = append(chain, p)
					}
					t.Errorf("the release links %s", strings.Join(chain, " <- "))
					continue
				}
				for _, next := range imports[pkg] {
					if _, seen := via[next]; !seen {
						via[next] = pkg
						queue = append(queue, next)
					}
				}
			}
			for g, why := range gateways {
				if !reachedGateways[g] {
					t.Errorf("%s (allowed for %s) is no longer linked: remove it from the gateways", g, why)
				}
			}
			if len(imports) < 100 {
				t.Fatalf("go list printed %d packages; the walk would prove nothing", len(imports))
			}
		})
	}
}
