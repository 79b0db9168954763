package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/rest"
)

// typeArgs covers every naming form kubectl accepts, categories, an
// ambiguous short name, deprecated versions, and unknown names.
var typeArgs = []string{
	"widgets", "widget", "Widget", "WIDGETS", "wd", "zw",
	"widgets.alpha.example.com", "widgets.zeta.example.com", "widget.zeta.example.com",
	"widgets.v1beta1.alpha.example.com", "widgets.v2alpha1.alpha.example.com", "widgets.v1.zeta.example.com",
	"Widget.alpha.example.com", "Widget.v1.zeta.example.com", "Widget.v1beta1.alpha.example.com",
	"gizmos", "gz", "Gizmo", "gizmo", "gizmos.beta.example.com", "gizmos.beta",
	"gadgets,gizmos", "wd,gz", "wd,widgets", "gd,zw,gd",
	"toys", "all", "cron", "toys,cron",
	"sprockets", "sprocket", "Sprocket.beta.example.com",
	"doohickeys", "dh", "Doohickey", "doohickey",
	"crontabs", "ct", "CronTab", "crontabs.v1beta1.stable.example.com",
	"nosuch", "widgets.nosuch.example.com", "wd,nosuch", "widgets.v9.alpha.example.com", "Nosuch.alpha.example.com",
}

// resolved is what a resolution gives, in a form both sides share.
type resolved struct {
	Mappings []string // resource, kind and scope per resolved type, in order
	Err      string
	Warnings []string
}

func describeMapping(m *meta.RESTMapping) string {
	return fmt.Sprintf("%s %s %s", m.Resource, m.GroupVersionKind, m.Scope.Name())
}

// TestResolutionMatchesKubectl resolves every TYPE form with kubectl's own
// resource builder (RESTMapper, shortcut and category expanders, listing
// against the server, server warnings) and with kubectl crd, on the same
// server, and compares the mappings, errors and warnings.
func TestResolutionMatchesKubectl(t *testing.T) {
	for _, arg := range typeArgs {
		t.Run(arg, func(t *testing.T) {
			want := kubectlResolve(t, arg)
			t.Logf("kubectl:\n%s", want)
			got := pluginResolve(t, arg, nil)
			if !equalResolved(arg, got, want) {
				t.Errorf("kubectl crd resolved %q as\n%s\nkubectl resolved it as\n%s", arg, got, want)
			}
		})
	}
}

// TestOfflineResolutionMatchesOnline resolves every TYPE form from the CRD
// files and from the cluster holding the same CRDs.
func TestOfflineResolutionMatchesOnline(t *testing.T) {
	for _, arg := range typeArgs {
		t.Run(arg, func(t *testing.T) {
			online := pluginResolve(t, arg, nil)
			offline := pluginResolve(t, arg, crdDirs)
			if !equalResolved(arg, offline, online) {
				t.Errorf("offline %q resolved as\n%s\nonline as\n%s", arg, offline, online)
			}
		})
	}
}

func (r resolved) String() string {
	return fmt.Sprintf("  mappings: %q\n  error: %q\n  warnings: %q", r.Mappings, r.Err, r.Warnings)
}

// equalResolved compares two resolutions. Within one group version the
// server lists resources in no fixed order (nor does kubectl's category
// expansion), so mappings of category arguments compare as sets.
func equalResolved(arg string, a, b resolved) bool {
	am, bm := a.Mappings, b.Mappings
	if hasCategory(arg) {
		am, bm = sorted(am), sorted(bm)
	}
	return fmt.Sprint(am) == fmt.Sprint(bm) && a.Err == b.Err && fmt.Sprint(a.Warnings) == fmt.Sprint(b.Warnings)
}

func hasCategory(arg string) bool {
	for _, part := range strings.Split(arg, ",") {
		if part == "all" || part == "toys" || part == "cron" {
			return true
		}
	}
	return false
}

func sorted(s []string) []string {
	s = append([]string(nil), s...)
	sort.Strings(s)
	return s
}

func warningLines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}

func kubectlResolve(t *testing.T, arg string) resolved {
	t.Helper()
	var warnings bytes.Buffer
	// Server warnings (deprecated versions) reach kubectl through the
	// default warning handler; shortcut warnings through its printer.
	rest.SetDefaultWarningHandler(rest.NewWarningWriter(&warnings, rest.WarningWriterOptions{Deduplicate: true}))
	defer rest.SetDefaultWarningHandler(rest.WarningLogger{})

	flags := genericclioptions.NewConfigFlags(true).WithWarningPrinter(genericiooptions.IOStreams{ErrOut: &warnings})
	flags.KubeConfig = &testCluster.Kubeconfig
	cacheDir := t.TempDir()
	flags.CacheDir = &cacheDir

	custom := customResources(t)
	var r resolved
	err := resource.NewBuilder(flags).
		Unstructured().
		AllNamespaces(true).
		ResourceTypeOrNameArgs(true, arg).
		Do().
		Visit(func(info *resource.Info, err error) error {
			if err != nil {
				return err
			}
			// kubectl crd's categories hold the custom resources in
			// them; the built-in ones are kubectl get's.
			if hasCategory(arg) && !custom[info.Mapping.Resource.GroupResource().String()] {
				return nil
			}
			r.Mappings = append(r.Mappings, describeMapping(info.Mapping))
			return nil
		})
	if err != nil {
		r.Err = err.Error()
	}
	r.Warnings = warningLines(warnings.String())
	return r
}

// customResources returns the group resources the cluster's CRDs define.
func customResources(t *testing.T) map[string]bool {
	t.Helper()
	crds, err := apiextensionsclient.NewForConfigOrDie(testCluster.Config).ApiextensionsV1().CustomResourceDefinitions().List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, crd := range crds.Items {
		out[crd.Name] = true
	}
	return out
}

// categoryTypes is what a category argument names for kubectl crd get: the
// custom resources kubectl finds in it, in kubectl's order, as one TYPE.
func categoryTypes(t *testing.T, arg string) string {
	t.Helper()
	var names []string
	for _, m := range kubectlResolve(t, arg).Mappings {
		// "group/version, Resource=plural group/version, Kind=Kind scope"
		gv, rest, _ := strings.Cut(m, ", Resource=")
		plural, _, _ := strings.Cut(rest, " ")
		group, _, _ := strings.Cut(gv, "/")
		names = append(names, plural+"."+group)
	}
	return strings.Join(names, ",")
}

func pluginResolve(t *testing.T, arg string, crdPaths []string) resolved {
	t.Helper()
	var errOut bytes.Buffer
	f := factory.New(genericiooptions.IOStreams{ErrOut: &errOut})
	f.ConfigFlags.KubeConfig = &testCluster.Kubeconfig
	cacheDir := t.TempDir()
	f.ConfigFlags.CacheDir = &cacheDir
	f.CRDPaths = crdPaths

	var r resolved
	cat, err := f.Catalog(false)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cat.Resolve(context.Background(), arg)
	var unknown *catalog.UnknownTypeError
	switch {
	case errors.As(err, &unknown):
		r.Err = unknown.Msg // kubectl's words; close matches are extra
	case err != nil:
		r.Err = err.Error()
	}
	for _, x := range res {
		r.Mappings = append(r.Mappings, describeMapping(x.Mapping))
	}
	r.Warnings = warningLines(errOut.String())
	return r
}
