package catalog

import (
	"context"
	"strings"
	"testing"
)

// TestQualifyArgs: get's TYPE arguments become the plural.version.group
// lists kubectl's get is given, and the forms kubectl refuses are refused.
func TestQualifyArgs(t *testing.T) {
	var warnings []string
	cat := offline(t, &warnings)
	tests := []struct {
		args      []string
		want, err string
	}{
		{args: nil, want: ""},
		{args: []string{"wd"}, want: "widgets.v1.alpha.example.com"},
		{args: []string{"samples", "alpha", "beta"}, want: "samples.v1.printing.example.com alpha beta"},
		{args: []string{"samples.v1beta1.printing.example.com"}, want: "samples.v1beta1.printing.example.com"},
		{args: []string{"samples,gizmos"}, want: "samples.v1.printing.example.com,gizmos.v1beta2.beta.example.com"},
		{args: []string{"samples/alpha", "wd/w1"}, want: "samples.v1.printing.example.com/alpha widgets.v1.alpha.example.com/w1"},
		{args: []string{"samples", "wd/w1"}, err: "there is no need to specify a resource type as a separate argument"},
		{args: []string{"toys/x"}, err: `"toys" must name exactly one resource type in TYPE/NAME`},
		{args: []string{"widgit"}, err: `the server doesn't have a resource type "widgit"`},
	}
	for _, tt := range tests {
		got, _, err := cat.QualifyArgs(context.Background(), tt.args)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%q: error %v, want %q", tt.args, err, tt.err)
			}
			continue
		}
		if err != nil || strings.Join(got, " ") != tt.want {
			t.Errorf("%q: %q, %v; want %q", tt.args, got, err, tt.want)
		}
	}
}
