package cost

import (
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
	}{{5, 1000, "0.50%"}, {97, 100, "97%"}, {100, 100, "100%"}, {1000001, 100, "over 100x"}} {
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
