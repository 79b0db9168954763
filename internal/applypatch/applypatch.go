// Package applypatch makes, on the client, the object that kubectl apply
// has the server store when the object exists: the three-way patch
// between the configuration last applied (the live object's annotation),
// the file (annotated as kubectl annotates it) and the live object,
// applied to the live object as the server applies it. As kubectl's apply
// chooses (k8s.io/kubectl/pkg/cmd/apply), the patch is a strategic merge
// patch for kinds with Go types and a JSON merge patch for custom
// resources. Fields the server or controllers set and the file does not
// name (a Service's cluster IP, a Job's selector, a custom resource's
// defaulted fields) stay.
package applypatch

import (
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/kubectl/pkg/util"
)

// Apply returns live, in JSON, patched with the file's object body as
// kubectl apply patches it. versioned is the kind's versioned Go type, nil
// for a custom resource. unchanged is true when the patch is empty:
// kubectl then sends nothing, and live is returned.
func Apply(body, live []byte, versioned runtime.Object) (out []byte, unchanged bool, err error) {
	current, err := unstructuredFrom(live)
	if err != nil {
		return nil, false, fmt.Errorf("the live object: %w", err)
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
	patch, err := kubectlPatch(original, modified, live, versioned)
	if err != nil {
		return nil, false, err
	}
	if string(patch) == "{}" {
		return live, true, nil
	}
	out, err = patchLive(live, patch, versioned)
	return out, false, err
}

// kubectlPatch is the patch kubectl apply computes.
func kubectlPatch(original, modified, live []byte, versioned runtime.Object) (patch []byte, err error) {
	defer recovered(&err, false)
	if versioned == nil {
		patch, err = jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, live,
			mergepatch.RequireKeyUnchanged("apiVersion"), mergepatch.RequireKeyUnchanged("kind"), mergepatch.RequireMetadataKeyUnchanged("name"))
		if mergepatch.IsPreconditionFailed(err) {
			return nil, fmt.Errorf("at least one of apiVersion, kind and name was changed")
		}
		return patch, err
	}
	meta, err := strategicpatch.NewPatchMetaFromStruct(versioned)
	if err != nil {
		return nil, err
	}
	return strategicpatch.CreateThreeWayMergePatch(original, modified, live, meta, true)
}

// patchLive applies patch to live as the server applies it.
func patchLive(live, patch []byte, versioned runtime.Object) (out []byte, err error) {
	defer recovered(&err, true)
	if versioned != nil {
		return strategicpatch.StrategicMergePatch(live, patch, versioned)
	}
	return jsonpatch.MergePatch(live, patch)
}

// PanicError is kubectl's code panicking as it computes the patch
// (kubectl apply then crashes), or the server's as it applies it (the
// server then answers with an internal error): both strategic merge steps
// panic on list items whose merge key is not a string or a number.
type PanicError struct {
	Value  any
	Server bool // the server's code panicked, not kubectl's
}

func (e *PanicError) Error() string {
	if e.Server {
		return fmt.Sprintf("kube-apiserver's code panics applying the patch kubectl apply sends for this object: %v", e.Value)
	}
	return fmt.Sprintf("kubectl apply panics computing its patch for this object: %v", e.Value)
}

// recovered turns a panic into *err, a *PanicError.
func recovered(err *error, server bool) {
	if r := recover(); r != nil {
		*err = &PanicError{Value: r, Server: server}
	}
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
