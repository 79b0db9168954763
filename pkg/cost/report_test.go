package cost

import (
	"bytes"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// TestTextSaysEachDetailOnce: rules driven alike get one line naming
// them all ("1-3: driven by: ..."), not one line each; versions without
// rules are counted, listed only with all.
func TestTextSaysEachDetailOnce(t *testing.T) {
	const rule = "self.names.all(n, n.size() < 10)"
	crd := rules(rule, 3, nil)
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	spec.XValidations = append(spec.XValidations, apiextensionsv1.ValidationRule{Rule: "self.other.matches('^a+$')"})
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	bare := crdWith(rule, nil, nil)
	bare.Name = "bare.cost.example.com"
	bare.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = apiextensionsv1.JSONSchemaProps{Type: "object"}
	var r Report
	for _, c := range []*apiextensionsv1.CustomResourceDefinition{crd, bare} {
		e, err := Estimate(c)
		if err != nil {
			t.Fatal(err)
		}
		r.CRDs = append(r.CRDs, e)
	}
	text := func(all bool) string {
		var b bytes.Buffer
		if err := Write(&b, "text", r, all); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	out := text(false)
	if n := strings.Count(out, "driven by: spec.names (no maxItems)"); n != 1 || !strings.Contains(out, "  1-3: driven by: spec.names (no maxItems)") {
		t.Errorf("the list's three rules: %d lines of their driver, want one for 1-3:\n%s", n, out)
	}
	if !strings.Contains(out, "  4: driven by: spec.other (no maxLength)") {
		t.Errorf("the string rule's driver:\n%s", out)
	}
	if strings.Contains(out, "bare.cost.example.com") || !strings.HasSuffix(out, "\n1 CRD version without CEL rules (--all lists them)\n") {
		t.Errorf("the version without rules:\n%s", out)
	}
	if all := text(true); !strings.Contains(all, "bare.cost.example.com v1: total 0 of 100,000,000 (0.0%)") || strings.Contains(all, "without CEL rules") {
		t.Errorf("--all:\n%s", all)
	}
	var md bytes.Buffer
	if err := Write(&md, "markdown", r, false); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "bare.cost.example.com") || !strings.Contains(md.String(), "1 CRD version without CEL rules") {
		t.Errorf("markdown:\n%s", md.String())
	}
}

func TestRanges(t *testing.T) {
	for _, tt := range []struct {
		in   []int
		want string
	}{{[]int{1}, "1"}, {[]int{1, 2, 3}, "1-3"}, {[]int{1, 2, 4, 6, 7, 8}, "1-2, 4, 6-8"}} {
		if got := ranges(tt.in); got != tt.want {
			t.Errorf("ranges(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
