// Package corpus runs the differential tests over real-world CRDs and
// examples: the corpus named by KUBECTL_CRD_CORPUS, or ../shared/corpus
// beside the repository. Without it, every test here says so and skips.
package corpus

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/test/cluster"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var (
	corpusDir   string // "" when there is no corpus
	testCluster *cluster.Cluster
	bin         *harness.Bin
	// projects maps each corpus project to the CRDs of it the server took.
	projects = map[string][]*apiextensionsv1.CustomResourceDefinition{}
	// accepted and refused are the example objects of those CRDs the
	// server created and refused.
	accepted, refused []manifest.Document
	// refusals are the server's errors for refused, in the same order.
	refusals []error
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	repoRoot, err := filepath.Abs("../..")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	corpusDir = os.Getenv("KUBECTL_CRD_CORPUS")
	if corpusDir == "" {
		corpusDir = filepath.Join(repoRoot, "..", "shared", "corpus")
	}
	if _, err := os.Stat(corpusDir); err != nil {
		fmt.Fprintf(os.Stderr, "corpus: no corpus at %s (set KUBECTL_CRD_CORPUS): the corpus tests skip\n", corpusDir)
		corpusDir = ""
		return m.Run()
	}

	var stop func()
	if bin, testCluster, stop, err = harness.Start(repoRoot); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	if err := bin.BuildKubectl(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	start := time.Now()
	if err := loadCorpus(context.Background()); err != nil {
		fmt.Fprintf(os.Stderr, "loading the corpus: %v\n", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "corpus: loaded in %v\n", time.Since(start).Round(time.Millisecond))
	return m.Run()
}

func needCorpus(t *testing.T) {
	t.Helper()
	if corpusDir == "" {
		t.Skip("no corpus (set KUBECTL_CRD_CORPUS or put it at ../shared/corpus)")
	}
}

// loadCorpus creates every project's CRDs (the first of two with the same
// name wins: the corpus holds alternative channels of some), then every
// example object of those CRDs that the server accepts.
func loadCorpus(ctx context.Context) error {
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		return err
	}
	seen := map[string]string{}
	kinds := map[string]bool{}
	var rejected []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		project := e.Name()
		docs, err := readDir(filepath.Join(corpusDir, project, "crds"))
		if err != nil {
			return err
		}
		for i := range docs {
			d := &docs[i]
			if !catalog.IsCRD(d.TypeMeta()) {
				continue
			}
			crd, err := catalog.DecodeCRD(d)
			if err != nil {
				return err
			}
			if first, dup := seen[crd.Name]; dup {
				fmt.Fprintf(os.Stderr, "corpus: %s: %s is also in %s; keeping the first\n", d.Pos(), crd.Name, first)
				continue
			}
			seen[crd.Name] = d.Pos()
			if err := testCluster.CreateCRDs(ctx, crd.CustomResourceDefinition); err != nil {
				rejected = append(rejected, fmt.Sprintf("%s: %v", d.Pos(), err))
				continue
			}
			projects[project] = append(projects[project], crd.CustomResourceDefinition)
			kinds[crd.Spec.Group+"/"+crd.Spec.Names.Kind] = true
		}
	}
	for project := range projects {
		for _, sub := range []string{"examples", "invalid"} {
			docs, err := readDir(filepath.Join(corpusDir, project, sub))
			if err != nil {
				return err
			}
			for _, d := range docs {
				obj := &unstructured.Unstructured{}
				if obj.UnmarshalJSON(d.JSON) != nil || !kinds[obj.GroupVersionKind().Group+"/"+obj.GetKind()] {
					continue
				}
				if err := testCluster.CreateObjects(ctx, obj); err != nil {
					refused = append(refused, d)
					refusals = append(refusals, err)
					continue
				}
				accepted = append(accepted, d)
			}
		}
	}
	sort.Strings(rejected)
	for _, r := range rejected {
		fmt.Fprintf(os.Stderr, "corpus: the server rejected %s\n", r)
	}
	fmt.Fprintf(os.Stderr, "corpus: %d CRDs, %d objects created, %d refused by the server\n", len(seen)-len(rejected), len(accepted), len(refused))
	return nil
}

// readDir reads every YAML or JSON file below dir (none if it is absent),
// skipping files that do not parse (the corpus holds a few on purpose).
func readDir(dir string) ([]manifest.Document, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, nil
	}
	var docs []manifest.Document
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ext := strings.ToLower(filepath.Ext(p)); ext != ".yaml" && ext != ".yml" && ext != ".json" {
			return nil
		}
		more, err := manifest.ReadFile(p)
		if err != nil {
			fmt.Fprintf(os.Stderr, "corpus: skipping %v\n", err)
			return nil
		}
		docs = append(docs, more...)
		return nil
	})
	return docs, err
}
