package corpus

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
)

// TestFastPathAnswersTheSame validates every corpus example of a loaded
// CRD (those the server created and those it refused), and each
// directory of the project's examples and test data, with the fast
// paths (the schema proof in front of the server's validator, YAML read
// in one pass) and without them (KUBECTL_CRD_FAST=0): the outputs must
// be the same, byte for byte, and the data must hold both valid and
// invalid objects.
func TestFastPathAnswersTheSame(t *testing.T) {
	needCorpus(t)
	dir := t.TempDir()
	var crds, objects bytes.Buffer
	for _, list := range projects {
		for _, c := range list {
			b, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			crds.Write(append(b, '\n'))
		}
	}
	for _, d := range append(append([]manifest.Document(nil), accepted...), refused...) {
		objects.Write(append(bytes.TrimSpace(d.JSON), '\n'))
	}
	write := func(name string, b *bytes.Buffer) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	runs := [][]string{{"--crds", write("crds.json", &crds), "-f", write("objects.json", &objects)}}
	// Each directory of the project's examples and test data as one
	// input, with the CRDs beside its objects.
	for _, parent := range []string{"../../examples", "../../test/testdata"} {
		entries, err := os.ReadDir(parent)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				runs = append(runs, []string{"-R", "-f", filepath.Join(parent, e.Name())})
			}
		}
	}
	valid, invalid := 0, 0
	for _, run := range runs {
		args := append([]string{"validate", "-o", "json", "--offline"}, run...)
		fast := bin.Run(t, "kubectl-crd", nil, args...)
		slow := bin.Run(t, "kubectl-crd", []string{"KUBECTL_CRD_FAST=0"}, args...)
		if fast.Code != slow.Code || fast.Stdout != slow.Stdout || fast.Stderr != slow.Stderr {
			t.Errorf("%v: with the proof: exit %d, without: exit %d; outputs differ:\n%s\n---\n%s", run, fast.Code, slow.Code, fast.Stdout, slow.Stdout)
		}
		var report validate.Report
		if json.Unmarshal([]byte(slow.Stdout), &report) != nil {
			continue // an input that cannot be checked: the same error both ways
		}
		for _, r := range report.Results {
			switch r.Status {
			case "valid":
				valid++
			case "invalid":
				invalid++
			}
		}
	}
	t.Logf("%d inputs: %d objects valid, %d invalid, the same both ways", len(runs), valid, invalid)
	if valid == 0 || invalid == 0 {
		t.Errorf("%d valid and %d invalid: the comparison needs both", valid, invalid)
	}
}
