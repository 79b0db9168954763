package crdtest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/convert"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// create runs an onCreate case: the object is created as the server
// creates it, then its error, or the object stored, is compared with the
// case's expectation.
func (r *Runner) create(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, version, file string, c CreateCase) Result {
	obj, err := object(c.Initial, crd, version, c.ResourceName, c.UseGenerateName)
	if err != nil {
		return errored(positioned(file, c.Line, "initial", err))
	}
	v, err := r.validator(crd, versionOf(obj))
	if err != nil {
		return verdict(err, c.ExpectedError, "creating the object")
	}
	sent := obj.DeepCopy().Object
	res := v.CreateWith(ctx, obj.Object, "default", r.Admission)
	if res.Err != nil || c.ExpectedError != "" {
		return verdict(res.Err, c.ExpectedError, "creating the object")
	}
	stored, err := r.readBack(crd, res.Object)
	if err != nil {
		return failed("reading the object back: %v", err)
	}
	return matches(file, c.Line, stored, c.Expected, dropped{crd: crd, version: versionOf(obj), unknown: res.Unknown, sent: sent})
}

// readBack is a written object as the server returns it at its version:
// converted to the storage version, stored, decoded from storage
// (defaulted at the storage version) and converted back (pkg/convert,
// the server's own read path).
func (r *Runner) readBack(crd *apiextensionsv1.CustomResourceDefinition, obj map[string]any) (map[string]any, error) {
	c, err := r.converters.Get(variantKey(crd), func() (*convert.Converter, error) { return convert.New(crd, convert.Webhook{}) })
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: obj}
	back, err := c.Read(u, u.GroupVersionKind().Version)
	if err != nil {
		return nil, err
	}
	return back.Object, nil
}

// update runs an onUpdate case: the object is created (under the patched
// CRD, with initialCRDPatches) with its status written, then updated to
// the updated object, and its status written, under the CRD as it is.
func (r *Runner) update(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, version, file string, c UpdateCase) Result {
	initial, err := object(c.Initial, crd, version, c.ResourceName, c.UseGenerateName)
	if err != nil {
		return errored(positioned(file, c.Line, "initial", err))
	}
	updated, err := object(c.Updated, crd, version, c.ResourceName, c.UseGenerateName)
	if err != nil {
		return errored(positioned(file, c.Line, "updated", err))
	}
	before := func(version string) (*validate.Validator, error) { return r.validator(crd, version) }
	if len(c.InitialCRDPatches) > 0 {
		patched, err := r.patched(ctx, crd, c.InitialCRDPatches)
		if err != nil {
			var pe *patchError
			if errors.As(err, &pe) {
				return errored(positioned(file, c.Line, "initialCRDPatches", err))
			}
			return Result{Status: Failed, Message: "updating the CustomResourceDefinition with initialCRDPatches: " + err.Error()}
		}
		before = func(version string) (*validate.Validator, error) { return r.patchedValidator(patched, version) }
	}

	// The initial object and its status, as the format's runner writes
	// them: both must be accepted.
	v, err := before(versionOf(initial))
	if err != nil {
		return failed("creating the initial object: %v", err)
	}
	status, hasStatus := initial.Object["status"]
	res := v.CreateWith(ctx, initial.Object, "default", r.Admission)
	if res.Err != nil {
		return failed("creating the initial object: %v", res.Err)
	}
	stored := stamp(res.Object, 1)
	if hasStatus && status != nil && v.HasStatus() {
		withStatus := copyWith(stored, status)
		if res = v.UpdateStatus(ctx, withStatus, stored); res.Err != nil {
			return failed("writing the initial object's status: %v", res.Err)
		}
		stored = stamp(res.Object, 2)
	}
	if stored, err = r.readBack(crd, stored); err != nil {
		return failed("reading the initial object back: %v", err)
	}

	// The update, then its status, under the CRD as it is.
	if v, err = r.validator(crd, versionOf(updated)); err != nil {
		return verdict(err, c.ExpectedError, "updating the object")
	}
	meta := unstructured.Unstructured{Object: stored}
	updated.SetName(meta.GetName())
	updated.SetNamespace(meta.GetNamespace())
	updated.SetResourceVersion(meta.GetResourceVersion())
	status, hasStatus = updated.Object["status"]
	sent := updated.DeepCopy().Object
	res = v.UpdateWith(ctx, updated.Object, stored, r.Admission)
	if res.Err != nil || c.ExpectedError != "" {
		return verdict(res.Err, c.ExpectedError, "updating the object")
	}
	unknown := res.Unknown
	if stored, err = r.readBack(crd, stamp(res.Object, 3)); err != nil {
		return failed("reading the updated object back: %v", err)
	}
	if hasStatus && status != nil && v.HasStatus() {
		res = v.UpdateStatus(ctx, copyWith(stored, status), stored)
		if res.Err != nil || c.ExpectedStatusError != "" {
			return verdict(res.Err, c.ExpectedStatusError, "updating the object's status")
		}
		unknown = append(unknown, res.Unknown...)
		if stored, err = r.readBack(crd, stamp(res.Object, 4)); err != nil {
			return failed("reading the object back: %v", err)
		}
	} else if c.ExpectedStatusError != "" {
		return failed("expected an error containing %q updating the status, but the updated object has no status to write", c.ExpectedStatusError)
	}
	return matches(file, c.Line, stored, c.Expected, dropped{crd: crd, version: versionOf(updated), unknown: unknown, sent: sent})
}

// object reads a case's object, named and placed as the format's runner
// creates it: resourceName (as a name, or with useGenerateName as a
// generateName), else its own name, else generateName "test-"; in the
// namespace "default" unless it names one (none for a cluster-scoped
// kind).
func object(text string, crd *apiextensionsv1.CustomResourceDefinition, version, resourceName string, useGenerateName bool) (*unstructured.Unstructured, error) {
	m, err := decodeYAML(text)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("not an object: empty")
	}
	u := &unstructured.Unstructured{Object: m}
	if version != "" {
		// The suite's version is the one its cases run at.
		u.SetAPIVersion(crd.Spec.Group + "/" + version)
	}
	switch {
	case resourceName != "" && useGenerateName:
		u.SetName("")
		u.SetGenerateName(resourceName)
	case resourceName != "":
		u.SetName(resourceName)
	case u.GetName() == "":
		u.SetGenerateName("test-")
	}
	switch {
	case crd.Spec.Scope == apiextensionsv1.ClusterScoped:
		u.SetNamespace("")
	case u.GetNamespace() == "":
		u.SetNamespace("default")
	}
	return u, nil
}

// versionOf is the version of an object's apiVersion.
func versionOf(u *unstructured.Unstructured) string { return u.GroupVersionKind().Version }

// stamp gives a stored object the resource version storage would.
func stamp(obj map[string]any, rv int) map[string]any {
	u := unstructured.Unstructured{Object: obj}
	u.SetResourceVersion(fmt.Sprint(rv))
	return obj
}

// copyWith is obj with status in place of its own.
func copyWith(obj map[string]any, status any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	out["status"] = status
	return out
}

// decodeYAML reads a case's YAML object as the server reads a request's
// JSON: integers stay integers.
func decodeYAML(text string) (map[string]any, error) {
	data, err := yaml.YAMLToJSON([]byte(text))
	if err != nil {
		return nil, fmt.Errorf("not YAML: %w", err)
	}
	var v any
	if err := sigsjson.UnmarshalCaseSensitivePreserveInts(data, &v); err != nil {
		return nil, fmt.Errorf("not an object: %w", err)
	}
	switch v := v.(type) {
	case map[string]any:
		return v, nil
	case nil:
		return nil, nil
	case []any:
		return nil, errors.New("not an object: the text is a list")
	default:
		return nil, fmt.Errorf("not an object: the text is the scalar %q", strings.TrimSpace(text))
	}
}
