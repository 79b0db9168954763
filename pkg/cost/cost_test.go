package cost

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNumberAndShare(t *testing.T) {
	for n, want := range map[uint64]string{0: "0", 999: "999", 1000: "1,000", 3629685: "3,629,685", 10000000: "10,000,000"} {
		if got := Number(n); got != want {
			t.Errorf("Number(%d) = %q, want %q", n, got, want)
		}
	}
	for _, tt := range []struct {
		cost, limit uint64
		want        string
	}{{5, 1000, "0.5%"}, {97, 100, "97.0%"}, {100, 100, "100.0%"}, {1, 10000, "<0.1%"}, {5, 10000, "0.1%"}, {0, 100, "0.0%"},
		{926, 1000, "92.6%"}, {1000001, 100, "over 100x"}} {
		if got := Share(tt.cost, tt.limit); got != tt.want {
			t.Errorf("Share(%d, %d) = %q, want %q", tt.cost, tt.limit, got, tt.want)
		}
	}
}

// crdWith is a CRD whose spec has a list of names (bounded by maxItems
// and maxLength when given), an unbounded string no rule reads, and rule
// on spec.
func crdWith(rule string, maxItems, maxLength *int64) *apiextensionsv1.CustomResourceDefinition {
	spec := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"names": {Type: "array", MaxItems: maxItems, Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string", MaxLength: maxLength}}},
		"other": {Type: "string"},
	}, XValidations: apiextensionsv1.ValidationRules{{Rule: rule}}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "things.cost.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "cost.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Kind: "Thing"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": spec}}}}},
		},
	}
}

func only(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition) Rule {
	t.Helper()
	e, err := Estimate(crd)
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Versions) != 1 || len(e.Versions[0].Rules) != 1 {
		t.Fatalf("estimate %+v", e)
	}
	return e.Versions[0].Rules[0]
}

// TestDriversAndBounds: an unbounded list of unbounded strings that a
// rule iterates is over the limit; its drivers are the fields the rule
// reads (not the string it does not), and the bound suggested for a
// driver, set, brings the rule under the limit, as estimated again.
func TestDriversAndBounds(t *testing.T) {
	rule := "self.names.all(n, self.names.exists(m, m == n))"
	r := only(t, crdWith(rule, nil, nil))
	if !r.Over() {
		t.Fatalf("unbounded: cost %d under %d", r.Cost, r.Limit)
	}
	var items *Driver
	for i, d := range r.Drivers {
		if d.Field == "spec.other" {
			t.Errorf("a field the rule does not read drives it: %+v", r.Drivers)
		}
		if d.Keyword == "maxItems" {
			items = &r.Drivers[i]
		}
	}
	if items == nil {
		t.Fatalf("no maxItems driver: %+v", r.Drivers)
	}
	length := int64(64)
	bounded := only(t, crdWith(rule, nil, &length))
	if !bounded.Over() {
		t.Fatalf("strings bounded, the list not: cost %d under %d", bounded.Cost, bounded.Limit)
	}
	for _, d := range bounded.Drivers {
		if d.Keyword == "maxItems" && d.Bound != nil {
			if fit := only(t, crdWith(rule, d.Bound, &length)); fit.Over() {
				t.Errorf("maxItems %d, as suggested: still over (%d > %d)", *d.Bound, fit.Cost, fit.Limit)
			}
			over := *d.Bound * 2
			if again := only(t, crdWith(rule, &over, &length)); !again.Over() {
				t.Errorf("maxItems %d, twice the suggestion: under the limit; the suggestion is not the largest", over)
			}
			return
		}
	}
	t.Errorf("no maxItems bound suggested: %+v", bounded.Drivers)
}

// TestRulesOfOneNodeAndSharedSchemas: two rules on one node, measured
// together, each keep their own drivers (one reads the list, the other
// the string); a version with the schema of another gets the same
// estimate at its own place.
func TestRulesOfOneNodeAndSharedSchemas(t *testing.T) {
	crd := crdWith("self.names.all(n, self.names.exists(m, m == n))", nil, nil)
	spec := crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	spec.XValidations = append(spec.XValidations, apiextensionsv1.ValidationRule{Rule: "self.other.matches('^a+$')"})
	crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	// v2's schema is v1's; v3's is not (were all the same, the server
	// would keep one schema for all).
	v2 := *crd.Spec.Versions[0].DeepCopy()
	v2.Name, v2.Storage = "v2", false
	v3 := *v2.DeepCopy()
	v3.Name = "v3"
	v3.Schema.OpenAPIV3Schema.Properties["status"] = apiextensionsv1.JSONSchemaProps{Type: "object"}
	crd.Spec.Versions = append(crd.Spec.Versions, v2, v3)
	e, err := Estimate(crd)
	if err != nil || len(e.Versions) != 3 {
		t.Fatalf("%v %+v", err, e)
	}
	fields := map[string][]string{}
	for _, r := range e.Versions[0].Rules {
		for _, d := range r.Drivers {
			fields[r.Rule] = append(fields[r.Rule], d.Field)
		}
	}
	if got := fields["self.other.matches('^a+$')"]; len(got) != 1 || got[0] != "spec.other" {
		t.Errorf("the string rule's drivers: %v", got)
	}
	for _, f := range fields["self.names.all(n, self.names.exists(m, m == n))"] {
		if f == "spec.other" {
			t.Errorf("the list rule is driven by the string it does not read: %v", fields)
		}
	}
	one, two := e.Versions[0], e.Versions[1]
	if !strings.Contains(two.Schema, "versions[1]") || len(one.Rules) != len(two.Rules) {
		t.Fatalf("v2's estimate: %+v", two)
	}
	for i := range one.Rules {
		a, b := one.Rules[i], two.Rules[i]
		if b.Path != strings.Replace(a.Path, "versions[0]", "versions[1]", 1) || a.Cost != b.Cost || len(a.Drivers) != len(b.Drivers) {
			t.Errorf("rule %d: v1 %+v, v2 %+v", i, a, b)
		}
	}
}
