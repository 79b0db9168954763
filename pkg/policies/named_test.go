package policies

import "testing"

func TestNamed(t *testing.T) {
	for _, tc := range []struct{ message, policy, binding string }{
		{"ValidatingAdmissionPolicy 'limits' with binding 'limits-prod' denied request: too many", "limits", "limits-prod"},
		{"ValidatingAdmissionPolicy 'limits' denied request: failed to configure binding: no params found", "limits", ""},
		{"Validation failed for ValidatingAdmissionPolicy 'labels' with binding 'labels': a team: 'x'", "labels", "labels"},
		{"policy 'add-label' with binding 'all' denied request: expression failed", "add-label", "all"},
		{`policy "add-label" denied request: failed to configure policy`, "add-label", ""},
		{"spec.replicas: Invalid value: 4: must be at most 3", "", ""},
	} {
		if p, b := Named(tc.message); p != tc.policy || b != tc.binding {
			t.Errorf("Named(%q) = %q, %q; want %q, %q", tc.message, p, b, tc.policy, tc.binding)
		}
	}
}
