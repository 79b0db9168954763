package flux

import (
	"bytes"
	"encoding/base64"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// sopsMask is what an encrypted value is checked as: flux build's mask.
const sopsMask = "**SOPS**"

// encrypted tells whether a rendered Secret is SOPS-encrypted, as flux
// build tells it: its text holds sops metadata with an encrypted MAC.
func encrypted(obj *unstructured.Unstructured, text []byte) bool {
	return obj.GetKind() == "Secret" && bytes.Contains(text, []byte("sops:")) && bytes.Contains(text, []byte("mac: ENC["))
}

// sopsRefused is kustomize-controller's refusal of an encrypted Secret
// when the Kustomization configures no decryption.
func sopsRefused(obj *unstructured.Unstructured) error {
	return fmt.Errorf("secret '%s/%s' is SOPS encrypted, configuring decryption is required for this secret to be reconciled",
		obj.GetNamespace(), obj.GetName())
}

// maskSOPS makes an encrypted Secret what kustomize-controller applies
// once it has decrypted it, but for the values, which only the keys can
// tell: the sops metadata gone, each value the mask (a Docker config a
// JSON one, as the server checks that type's data is).
func maskSOPS(obj *unstructured.Unstructured) {
	unstructured.RemoveNestedField(obj.Object, "sops")
	value := sopsMask
	if t, _, _ := unstructured.NestedString(obj.Object, "type"); t == "kubernetes.io/dockerconfigjson" {
		value = `{"auths":{}}`
	}
	for field, v := range map[string]string{"data": base64.StdEncoding.EncodeToString([]byte(value)), "stringData": value} {
		m, _, _ := unstructured.NestedMap(obj.Object, field)
		for k := range m {
			m[k] = v
		}
		if len(m) > 0 {
			_ = unstructured.SetNestedMap(obj.Object, m, field)
		}
	}
}
