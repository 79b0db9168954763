package convert

import (
	"errors"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestChanges(t *testing.T) {
	before := map[string]any{
		"metadata": map[string]any{"name": "a", "annotations": map[string]any{"example.com/x": "1"}},
		"spec": map[string]any{"shape": "round", "size": int64(3), "ports": []any{
			map[string]any{"port": int64(80)}, map[string]any{"port": int64(443)}}, "tags": []any{"a", "b"}},
	}
	after := map[string]any{
		"metadata": map[string]any{"name": "a", "labels": map[string]any{"app": "x"}, "annotations": map[string]any{}},
		"spec": map[string]any{"size": int64(4), "ports": []any{
			map[string]any{"port": int64(80)}, map[string]any{"port": int64(8443)}}, "tags": []any{"a"}, "my.field": true},
	}
	var got []string
	for _, c := range Changes(before, after) {
		got = append(got, c.String())
	}
	want := []string{
		`metadata.annotations[example.com/x]: lost (was "1")`,
		`metadata.labels: added ({"app":"x"})`,
		`spec[my.field]: added (true)`,
		`spec.ports[1].port: changed from 443 to 8443`,
		`spec.shape: lost (was "round")`,
		`spec.size: changed from 3 to 4`,
		`spec.tags: changed from ["a","b"] to ["a"]`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c := Changes(before, before); len(c) != 0 {
		t.Errorf("no change: %v", c)
	}
}

func TestWebhookValidate(t *testing.T) {
	for _, tc := range []struct {
		w   Webhook
		bad bool
	}{
		{Webhook{URL: "https://localhost:9443/convert"}, false},
		{Webhook{URL: "https://localhost"}, false},
		{Webhook{URL: "http://localhost:9443"}, true},
		{Webhook{URL: "localhost:9443"}, true},
		{Webhook{CA: []byte("not a certificate")}, true},
	} {
		if err := tc.w.Validate(); (err != nil) != tc.bad {
			t.Errorf("%+v: %v", tc.w, err)
		}
	}
	if (Webhook{}).timeout() != ServerTimeout || (Webhook{Timeout: 5e9}).timeout() != 5e9 || (Webhook{Timeout: 5 * ServerTimeout}).timeout() != ServerTimeout {
		t.Error("the timeout is the server's, or shorter")
	}
}

// widgets is a CRD with a webhook given as a service.
func widgets() *apiextensionsv1.CustomResourceDefinition {
	path, port := "/convert", int32(8443)
	schema := &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
		Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", XPreserveUnknownFields: ptr(true)}}}}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Kind: "Widget", ListKind: "WidgetList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema},
				{Name: "v2", Served: true, Schema: schema},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"},
					ClientConfig: &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{
						Namespace: "system", Name: "widget-webhook", Path: &path, Port: &port}}}},
		},
	}
}

func ptr[T any](v T) *T { return &v }

// TestServiceWithoutAddress: a webhook that is a service is not called
// without --webhook-url; the error says what to run. Objects that need no
// conversion are converted anyway.
func TestServiceWithoutAddress(t *testing.T) {
	c, err := New(widgets(), Webhook{})
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"a": "b"}}}
	got, err := c.Read(obj, "v1")
	if err != nil || got.Object["spec"].(map[string]any)["a"] != "b" {
		t.Errorf("v1 to v1 (the storage version): %v %v", got, err)
	}
	_, err = c.Read(obj, "v2")
	var unreachable *UnreachableServiceError
	if !errors.As(err, &unreachable) || !strings.Contains(err.Error(), "kubectl port-forward -n system service/widget-webhook 9443:8443") ||
		!strings.Contains(err.Error(), "--webhook-url https://localhost:9443/convert") {
		t.Errorf("v1 to v2: %v", err)
	}
	if _, err := c.Read(&unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v3", "kind": "Widget"}}, "v1"); err == nil ||
		!strings.Contains(err.Error(), `has no version "v3"`) {
		t.Errorf("a version the CRD lacks: %v", err)
	}
}

// TestWebhookURLPath: --webhook-url's path replaces the clientConfig's;
// without one the clientConfig's stays.
func TestWebhookURLPath(t *testing.T) {
	tg, err := Webhook{URL: "https://localhost:9443/v2/convert"}.target(widgets())
	if err != nil || *tg.crd.Spec.Conversion.Webhook.ClientConfig.Service.Path != "/v2/convert" || tg.unreachable != nil {
		t.Errorf("%+v %v", tg, err)
	}
	tg, err = Webhook{URL: "https://localhost:9443"}.target(widgets())
	if err != nil || *tg.crd.Spec.Conversion.Webhook.ClientConfig.Service.Path != "/convert" {
		t.Errorf("%+v %v", tg, err)
	}
	if u, _ := tg.services.ResolveEndpoint("system", "widget-webhook", 8443); u.Host != "localhost:9443" {
		t.Errorf("the service resolves to %v", u)
	}
}
