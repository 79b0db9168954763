package lifecycle

import (
	"encoding/json"
	"fmt"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestRow(t *testing.T) {
	url := "https://convert.example.com/crd"
	versions := func(storage string) []apiextensionsv1.CustomResourceDefinitionVersion {
		return []apiextensionsv1.CustomResourceDefinitionVersion{
			{Name: "v1alpha1", Served: false, Storage: storage == "v1alpha1"},
			{Name: "v1beta1", Served: true, Deprecated: true, Storage: storage == "v1beta1"},
			{Name: "v1", Served: true, Storage: storage == "v1"},
		}
	}
	tests := []struct {
		name           string
		storage        string
		stored         []string
		conv           *apiextensionsv1.CustomResourceConversion
		conditions     []apiextensionsv1.CustomResourceDefinitionCondition
		wantMigrate    bool
		wantConversion string
		wantConditions string
	}{
		{name: "only the storage version stored", storage: "v1", stored: []string{"v1"},
			wantConversion: "None", wantConditions: "[]"},
		{name: "an old version still stored", storage: "v1", stored: []string{"v1alpha1", "v1"}, wantMigrate: true,
			conv:           &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
			wantConversion: "None", wantConditions: "[]"},
		{name: "stored only at an old version", storage: "v1", stored: []string{"v1beta1"}, wantMigrate: true,
			conv: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
				ClientConfig: &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{Namespace: "ops", Name: "conv"}}}},
			wantConversion: "Webhook (service ops/conv)", wantConditions: "[]"},
		{name: "storage moved back", storage: "v1beta1", stored: []string{"v1beta1"},
			conv: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter, Webhook: &apiextensionsv1.WebhookConversion{
				ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: &url}}},
			conditions: []apiextensionsv1.CustomResourceDefinitionCondition{
				{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue},
				{Type: apiextensionsv1.NamesAccepted, Status: apiextensionsv1.ConditionFalse},
				{Type: apiextensionsv1.NonStructuralSchema, Status: apiextensionsv1.ConditionTrue},
				{Type: apiextensionsv1.KubernetesAPIApprovalPolicyConformant, Status: apiextensionsv1.ConditionTrue},
			},
			wantConversion: "Webhook (" + url + ")", wantConditions: "[NamesAccepted=False NonStructuralSchema=True]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			crd := &apiextensionsv1.CustomResourceDefinition{
				Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "example.com", Versions: versions(tt.storage), Conversion: tt.conv,
					Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget", ShortNames: []string{"wd"}}},
				Status: apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: tt.stored, Conditions: tt.conditions},
			}
			crd.Name = "widgets.example.com"
			n := int64(42)
			r := RowOf(crd, &n)
			if r.MigrationNeeded != tt.wantMigrate || MigrationNeeded(crd) != tt.wantMigrate {
				t.Errorf("migrationNeeded %v, want %v", r.MigrationNeeded, tt.wantMigrate)
			}
			if r.Conversion != tt.wantConversion {
				t.Errorf("conversion %q, want %q", r.Conversion, tt.wantConversion)
			}
			if got := fmt.Sprint(r.Conditions); got != tt.wantConditions {
				t.Errorf("conditions %s, want %s", got, tt.wantConditions)
			}
			if *r.Objects != 42 || fmt.Sprint(r.StoredVersions) != fmt.Sprint(tt.stored) {
				t.Errorf("objects %v, storedVersions %v", r.Objects, r.StoredVersions)
			}
			want := fmt.Sprintf(`[{"name":"v1alpha1","served":false,"storage":%v,"deprecated":false},{"name":"v1beta1","served":true,"storage":%v,"deprecated":true},{"name":"v1","served":true,"storage":%v,"deprecated":false}]`,
				tt.storage == "v1alpha1", tt.storage == "v1beta1", tt.storage == "v1")
			if got, _ := json.Marshal(r.Versions); string(got) != want {
				t.Errorf("versions %s, want %s", got, want)
			}
			obj, err := r.Object()
			if err != nil || obj.GetName() != crd.Name || obj.Object["objects"] != int64(42) {
				t.Errorf("as an object: %v, %v", obj, err)
			}
		})
	}
	r := RowOf(&apiextensionsv1.CustomResourceDefinition{}, nil)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(data, &back); err != nil || back["objects"] != nil || fmt.Sprint(back["storedVersions"]) != "[]" {
		t.Errorf("unknown objects and no stored versions: %s; want null and []", data)
	}
}

// TestVersionSpelling: one spelling of a version for every verb, and the
// compact one of list's column.
func TestVersionSpelling(t *testing.T) {
	for _, tt := range []struct {
		v          Version
		text, cell string
	}{
		{Version{Name: "v1", Served: true, Storage: true}, "v1 (storage)", "v1*"},
		{Version{Name: "v1beta1", Served: true, Deprecated: true}, "v1beta1 (deprecated)", "v1beta1(deprecated)"},
		{Version{Name: "v1alpha1"}, "v1alpha1 (not served)", "(v1alpha1)"},
		{Version{Name: "v2", Served: true}, "v2", "v2"},
	} {
		if tt.v.String() != tt.text || tt.v.Cell() != tt.cell {
			t.Errorf("%+v: %q and %q, want %q and %q", tt.v, tt.v.String(), tt.v.Cell(), tt.text, tt.cell)
		}
	}
}
