package builtin

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/kubectl/pkg/util"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// applied is what kubectl apply makes of live with body: the three-way
// strategic merge patch between the configuration last applied (live's
// annotation), body (annotated as kubectl annotates it) and live, applied
// to live as the server applies it. Fields the server or controllers set
// (a Service's cluster IP, a Job's selector) stay. unchanged is true when
// the patch is empty: kubectl then sends nothing.
func (k *Kind) applied(body, live []byte) (out []byte, unchanged bool, err error) {
	versioned, err := legacyscheme.Scheme.New(k.GVK)
	if err != nil {
		return nil, false, err
	}
	current, err := unstructuredFrom(live)
	if err != nil {
		return nil, false, err
	}
	original, err := util.GetOriginalConfiguration(current)
	if err != nil {
		return nil, false, err
	}
	file, err := unstructuredFrom(body)
	if err != nil {
		return nil, false, err
	}
	modified, err := util.GetModifiedConfiguration(file, true, unstructured.UnstructuredJSONScheme)
	if err != nil {
		return nil, false, err
	}
	patchMeta, err := strategicpatch.NewPatchMetaFromStruct(versioned)
	if err != nil {
		return nil, false, err
	}
	patch, err := strategicpatch.CreateThreeWayMergePatch(original, modified, live, patchMeta, true)
	if err != nil {
		return nil, false, err
	}
	if string(patch) == "{}" {
		return live, true, nil
	}
	out, err = strategicpatch.StrategicMergePatch(live, patch, versioned)
	return out, false, err
}

func unstructuredFrom(js []byte) (*unstructured.Unstructured, error) {
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(js, nil, nil)
	if err != nil {
		return nil, err
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("a %T, not one object", obj)
	}
	return u, nil
}
