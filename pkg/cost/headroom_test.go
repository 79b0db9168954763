package cost

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// rules is a CRD as crdWith, with n copies of rule on spec.
func rules(rule string, n int, maxItems *int64) *apiextensionsv1.CustomResourceDefinition {
	length := int64(16)
	crd := crdWith(rule, maxItems, &length)
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	for range n - 1 {
		spec.XValidations = append(spec.XValidations, apiextensionsv1.ValidationRule{Rule: rule})
	}
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	return crd
}

func total(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, opts Options) Version {
	t.Helper()
	e, err := EstimateWith(crd, opts)
	if err != nil || len(e.Versions) != 1 {
		t.Fatalf("%v %+v", err, e)
	}
	return e.Versions[0]
}

// TestHeadroom: a total near its limit gets the largest bound on one
// field that brings it to half the limit, as estimated again with the
// bound set (and with one more, it is above); a total well under gets
// none, and the estimate without the option searches for none.
func TestHeadroom(t *testing.T) {
	const rule = "self.names.all(n, n.size() < 10)"
	// Copies of a rule over the unbounded list, enough to put the total
	// between 75% and 100% of the limit.
	one := total(t, rules(rule, 1, nil), Options{}).Total
	n := int(CRDLimit / 100 * 90 / one)
	near := rules(rule, n, nil)
	if v := total(t, near, Options{}); v.Total < CRDLimit/100*headroomFrom || v.Over() || v.Headroom != nil {
		t.Fatalf("%d rules: total %s of the limit, headroom %+v without asking", n, Share(v.Total, v.TotalLimit), v.Headroom)
	}
	v := total(t, near, Options{Headroom: true})
	h := v.Headroom
	if h == nil {
		t.Fatalf("total %s of the limit: no headroom", Share(v.Total, v.TotalLimit))
	}
	if h.Field != "spec.names" || h.Keyword != "maxItems" || h.Aim != CRDLimit/100*headroomAim {
		t.Fatalf("headroom %+v", h)
	}
	with := total(t, rules(rule, n, &h.Bound), Options{Headroom: true})
	if with.Total != h.Total || with.Total > h.Aim {
		t.Errorf("maxItems %d: total %d (said %d), aim %d", h.Bound, with.Total, h.Total, h.Aim)
	}
	if with.Headroom != nil {
		t.Errorf("at the aim, headroom again: %+v", with.Headroom)
	}
	more := h.Bound + 1
	if above := total(t, rules(rule, n, &more), Options{}); above.Total <= h.Aim {
		t.Errorf("maxItems %d, one more than suggested: total %d still at most the aim %d: not the largest", more, above.Total, h.Aim)
	}
	// Fewer rules, well under the limit: nothing to say.
	if few := total(t, rules(rule, 2, nil), Options{Headroom: true}); few.Headroom != nil {
		t.Errorf("total %s of the limit: headroom %+v", Share(few.Total, few.TotalLimit), few.Headroom)
	}
	var out bytes.Buffer
	if err := Write(&out, "text", Report{CRDs: []CRD{{Name: "things.cost.example.com", Versions: []Version{v}}}}, false); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("at %s of the CRD limit: spec.names maxItems: %d or less (+kubebuilder:validation:MaxItems=%d) brings the total to %s of it (aiming at 50%%",
		Share(v.Total, v.TotalLimit), h.Bound, h.Bound, Share(h.Total, CRDLimit))
	if !strings.Contains(out.String(), want) {
		t.Errorf("text has no %q:\n%s", want, out.String())
	}
}
