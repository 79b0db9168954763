package corpus

import (
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestSamplesTheServerAccepts sends the minimal and the full sample of
// every served version of the corpus's CRDs (those the server took) to
// the server as dry-run creates with strict field validation. Targets: 95%
// of minimal samples and 85% of full ones accepted; the sample's own
// verdict must be the server's on every one.
func TestSamplesTheServerAccepts(t *testing.T) {
	needCorpus(t)
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, list := range projects {
		crds = append(crds, list...)
	}
	tally := harness.SampleAgainstServer(t, testCluster.Config, crds)
	for _, r := range tally.Refusals {
		t.Logf("refused: %s", r)
	}
	t.Logf("not judged (a version converted by a webhook that does not run here): %s", strings.Join(tally.Unjudged, ", "))
	for full, target := range map[bool]float64{false: 95, true: 85} {
		t.Logf("full %v: the server accepts %d of %d samples (%.1f%%)", full, tally.Accepted[full], tally.Made[full], tally.Percent(full))
		if tally.Percent(full) < target {
			t.Errorf("full %v: %.1f%% accepted, below the target of %.0f%%", full, tally.Percent(full), target)
		}
	}
}
