package e2e

import (
	"encoding/json"
	"testing"
)

// TestFastPathSwitch: the process says which paths it takes, and
// KUBECTL_CRD_FAST=0 turns them off (the switch test/corpus's
// TestFastPathAnswersTheSame compares across).
func TestFastPathSwitch(t *testing.T) {
	for _, tt := range []struct {
		env  []string
		want bool
	}{{nil, true}, {[]string{"KUBECTL_CRD_FAST=1"}, true}, {[]string{"KUBECTL_CRD_FAST=0"}, false}} {
		r := bin.Run(t, "kubectl-crd", tt.env, "version", "-o", "json")
		var v struct {
			FastPaths *bool `json:"fastPaths"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &v); err != nil || v.FastPaths == nil || *v.FastPaths != tt.want {
			t.Errorf("%v: version says %s (%v), want fastPaths %v", tt.env, r.Stdout, err, tt.want)
		}
	}
}
