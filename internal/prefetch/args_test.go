package prefetch

import (
	"slices"
	"strings"
	"testing"
)

func TestValidateInput(t *testing.T) {
	for _, c := range []struct {
		args      string
		paths     []string
		recursive bool
	}{
		{"validate -f a.yaml", []string{"a.yaml"}, false},
		{"validate --filename a.yaml -f=b.yaml -fc.yaml --filename=d=e.yaml", []string{"a.yaml", "b.yaml", "c.yaml", "d=e.yaml"}, false},
		{"validate -R -f dir --crds crds -o json", []string{"dir"}, true},
		{"validate --recursive -f dir", []string{"dir"}, true},
		{"validate -f dir --recursive=false", []string{"dir"}, false},
		{"validate -R=true -f dir", []string{"dir"}, true},
		{"validate -v=4 --validate warn -f a.yaml", []string{"a.yaml"}, false},
		{"validate -f a.yaml -- -f b.yaml", []string{"a.yaml"}, false},
		{"validate -f", nil, false},
		{"validate -f -", nil, false},
		{"validate -f a.yaml -f -", nil, false},
		{"validate -k dir", nil, false},
		{"validate -f a.yaml --kustomize=dir", nil, false},
		{"validate -R=maybe -f a.yaml", nil, false},
		{"validate --crds crds", nil, false},
		{"get -f a.yaml", nil, false},
		{"-v=4 validate -f a.yaml", nil, false},
		{"", nil, false},
	} {
		paths, recursive, ok := validateInput(strings.Fields(c.args))
		if !slices.Equal(paths, c.paths) || recursive != c.recursive || ok != (c.paths != nil) {
			t.Errorf("%q: %q recursive=%v ok=%v, want %q recursive=%v ok=%v",
				c.args, paths, recursive, ok, c.paths, c.recursive, c.paths != nil)
		}
	}
}
