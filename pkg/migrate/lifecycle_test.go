package migrate

import (
	"fmt"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestSummary(t *testing.T) {
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
			wantConversion: "Webhook (ops/conv)", wantConditions: "[]"},
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
			s := Summary(crd, &n)
			if s["migrationNeeded"] != tt.wantMigrate || MigrationNeeded(crd) != tt.wantMigrate {
				t.Errorf("migrationNeeded %v, want %v", s["migrationNeeded"], tt.wantMigrate)
			}
			if s["conversion"] != tt.wantConversion {
				t.Errorf("conversion %q, want %q", s["conversion"], tt.wantConversion)
			}
			if got := fmt.Sprint(s["conditions"]); got != tt.wantConditions {
				t.Errorf("conditions %s, want %s", got, tt.wantConditions)
			}
			if s["objects"] != int64(42) || fmt.Sprint(s["storedVersions"]) != fmt.Sprint(tt.stored) {
				t.Errorf("objects %v, storedVersions %v", s["objects"], s["storedVersions"])
			}
			want := fmt.Sprintf("[map[deprecated:false name:v1alpha1 served:false storage:%v] map[deprecated:true name:v1beta1 served:true storage:%v] map[deprecated:false name:v1 served:true storage:%v]]",
				tt.storage == "v1alpha1", tt.storage == "v1beta1", tt.storage == "v1")
			if got := fmt.Sprint(s["versions"]); got != want {
				t.Errorf("versions %s, want %s", got, want)
			}
		})
	}
	if s := Summary(&apiextensionsv1.CustomResourceDefinition{}, nil); s["objects"] != nil {
		t.Errorf("unknown objects: %v, want nil (null in JSON)", s["objects"])
	}
}
