package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestValidateBuiltInMatchesServerDryRun runs kubectl crd validate -o json
// (online) over every object of a kind kube-apiserver serves itself in the
// corpus (its projects' examples, the manifests beside their CRDs under
// other/, and their invalid ones), renamed so that each is a create, and
// sends each to the server as a dry-run create with strict field
// validation: the verdicts and the causes must be equal.
func TestValidateBuiltInMatchesServerDryRun(t *testing.T) {
	needCorpus(t)
	kinds, err := builtin.New(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var data bytes.Buffer
	var objs [][]byte
	var where []string
	projects, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range projects {
		for _, sub := range []string{"examples", "other", "invalid"} {
			docs, err := readDir(filepath.Join(corpusDir, p.Name(), sub))
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range docs {
				obj := &unstructured.Unstructured{}
				if obj.UnmarshalJSON(d.JSON) != nil {
					continue
				}
				if found, err := kinds.Lookup(obj.GroupVersionKind()); found == nil && !errors.As(err, new(*builtin.NotServedError)) {
					continue
				}
				obj.SetName(obj.GetName() + "-dry-run")
				js, err := obj.MarshalJSON()
				if err != nil {
					t.Fatal(err)
				}
				data.Write(append(js, '\n'))
				objs = append(objs, js)
				where = append(where, d.Pos())
			}
		}
	}
	if len(objs) == 0 {
		t.Fatal("no object of a built-in kind in the corpus")
	}
	input := filepath.Join(t.TempDir(), "builtin.json")
	if err := os.WriteFile(input, data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := bin.Run(t, "kubectl-crd", nil, "validate", "-o", "json", "-f", input)
	var report validate.Report
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil || len(report.Results) != len(objs) {
		t.Fatalf("exit %d, %v, %d results for %d objects\n%s", r.Code, err, len(report.Results), len(objs), r.Stderr)
	}
	server, err := harness.NewDryRunner(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	agree, kindsSeen, invalid := 0, map[string]bool{}, 0
	for i, js := range objs {
		res := report.Results[i]
		got, want := harness.Causes(res), harness.ServerCauses(server.Run(t, js, "create"))
		if fmt.Sprint(got) == fmt.Sprint(want) && (want == nil) == (res.Status == "valid") {
			agree++
		} else {
			t.Errorf("%s: kubectl crd validate %s %q, server %q", where[i], res.Status, got, want)
		}
		kindsSeen[res.APIVersion+" "+res.Kind] = true
		if res.Status == "invalid" {
			invalid++
		}
	}
	t.Logf("%d objects of %d built-in kinds (%d invalid): kubectl crd validate and the server agree on %d", len(objs), len(kindsSeen), invalid, agree)
}
