package crdtest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/kubectl-crd/kubectl-crd/pkg/crdtest"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"
)

// server runs cases against kube-apiserver, as the suite format's own
// runner (openshift/api's tests, over envtest) does, one at a time.
type server struct {
	objects dynamic.Interface
	crds    apiextensionsclient.CustomResourceDefinitionInterface
}

// verdict is one case's answer from the server: whether it passed, and
// the server's error where there was one.
type verdict struct {
	passed bool
	why    string
}

func pass() verdict { return verdict{passed: true} }

func fail(format string, args ...any) verdict { return verdict{why: fmt.Sprintf(format, args...)} }

// expectError compares the server's error with the substring expected.
func expectError(err error, expected string) verdict {
	switch {
	case err == nil && expected != "":
		return fail("expected an error containing %q, got none", expected)
	case err != nil && !strings.Contains(err.Error(), expected):
		return fail("expected %q in the server's error: %v", expected, err)
	}
	return pass()
}

// object is a case's object as the format creates it.
func object(text string, crd *apiextensionsv1.CustomResourceDefinition, resourceName string, useGenerateName bool) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(text), &u.Object); err != nil {
		return nil, err
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
	if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
		u.SetNamespace("")
	} else if u.GetNamespace() == "" {
		u.SetNamespace("default")
	}
	return u, nil
}

func (s *server) resource(crd *apiextensionsv1.CustomResourceDefinition, u *unstructured.Unstructured) dynamic.ResourceInterface {
	gv := u.GroupVersionKind().GroupVersion()
	ri := s.objects.Resource(schema.GroupVersionResource{Group: gv.Group, Version: gv.Version, Resource: crd.Spec.Names.Plural})
	if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
		return ri
	}
	return ri.Namespace(u.GetNamespace())
}

func (s *server) create(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, c crdtest.CreateCase) verdict {
	u, err := object(c.Initial, crd, c.ResourceName, c.UseGenerateName)
	if err != nil {
		return fail("initial: %v", err)
	}
	ri := s.resource(crd, u)
	got, err := ri.Create(ctx, u, metav1.CreateOptions{})
	if err == nil {
		defer ri.Delete(ctx, got.GetName(), metav1.DeleteOptions{})
	}
	if err != nil || c.ExpectedError != "" {
		if err != nil && c.ExpectedError == "" {
			return fail("creating: %v", err)
		}
		return expectError(err, c.ExpectedError)
	}
	if got, err = ri.Get(ctx, got.GetName(), metav1.GetOptions{}); err != nil {
		return fail("getting: %v", err)
	}
	return matches(got.Object, c.Expected)
}

func (s *server) update(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, c crdtest.UpdateCase) verdict {
	initial, err := object(c.Initial, crd, c.ResourceName, c.UseGenerateName)
	if err != nil {
		return fail("initial: %v", err)
	}
	ri := s.resource(crd, initial)
	var original *apiextensionsv1.CustomResourceDefinition
	if len(c.InitialCRDPatches) > 0 {
		if original, err = s.patchCRD(ctx, crd.Name, c.InitialCRDPatches); err != nil {
			return fail("patching the CRD: %v", err)
		}
		defer s.setSpec(ctx, crd.Name, original.Spec)
	}
	status, hasStatus := initial.Object["status"]
	var stored *unstructured.Unstructured
	// The patched schema takes a moment to be served: retry until the
	// object is accepted, as the format's runner does.
	deadline := time.Now().Add(10 * time.Second)
	for {
		if stored, err = ri.Create(ctx, initial.DeepCopy(), metav1.CreateOptions{}); err == nil || time.Now().After(deadline) || original == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return fail("creating the initial object: %v", err)
	}
	defer ri.Delete(ctx, stored.GetName(), metav1.DeleteOptions{})
	if hasStatus && status != nil && hasStatusSubresource(crd, initial) {
		stored.Object["status"] = status
		if stored, err = ri.UpdateStatus(ctx, stored, metav1.UpdateOptions{}); err != nil {
			return fail("writing the initial status: %v", err)
		}
	}
	if original != nil {
		if stored, err = s.restore(ctx, ri, original, stored); err != nil {
			return fail("restoring the CRD: %v", err)
		}
	}
	updated, err := object(c.Updated, crd, c.ResourceName, c.UseGenerateName)
	if err != nil {
		return fail("updated: %v", err)
	}
	status, hasStatus = updated.Object["status"]
	updated.SetName(stored.GetName())
	updated.SetNamespace(stored.GetNamespace())
	updated.SetResourceVersion(stored.GetResourceVersion())
	got, err := ri.Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil || c.ExpectedError != "" {
		if err != nil && c.ExpectedError == "" {
			return fail("updating: %v", err)
		}
		return expectError(err, c.ExpectedError)
	}
	if hasStatus && status != nil && hasStatusSubresource(crd, updated) {
		got.Object["status"] = status
		_, err = ri.UpdateStatus(ctx, got, metav1.UpdateOptions{})
		if err != nil || c.ExpectedStatusError != "" {
			if err != nil && c.ExpectedStatusError == "" {
				return fail("writing the status: %v", err)
			}
			return expectError(err, c.ExpectedStatusError)
		}
	} else if c.ExpectedStatusError != "" {
		return fail("no status to write")
	}
	if got, err = ri.Get(ctx, stored.GetName(), metav1.GetOptions{}); err != nil {
		return fail("getting: %v", err)
	}
	return matches(got.Object, c.Expected)
}

func hasStatusSubresource(crd *apiextensionsv1.CustomResourceDefinition, u *unstructured.Unstructured) bool {
	for _, v := range crd.Spec.Versions {
		if v.Name == u.GroupVersionKind().Version {
			return v.Subresources != nil && v.Subresources.Status != nil
		}
	}
	return false
}

// patchCRD applies the patches to the CRD in the server, and returns it
// as it was.
func (s *server) patchCRD(ctx context.Context, name string, patches []crdtest.Patch) (*apiextensionsv1.CustomResourceDefinition, error) {
	original, err := s.crds.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	doc, err := json.Marshal(original)
	if err != nil {
		return nil, err
	}
	ops, _ := json.Marshal(patches)
	p, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		return nil, err
	}
	if doc, err = p.Apply(doc); err != nil {
		return nil, err
	}
	patched := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(doc, patched); err != nil {
		return nil, err
	}
	if _, err := s.crds.Update(ctx, patched, metav1.UpdateOptions{}); err != nil {
		return nil, err
	}
	return original, nil
}

// setSpec gives the CRD in the server spec.
func (s *server) setSpec(ctx context.Context, name string, spec apiextensionsv1.CustomResourceDefinitionSpec) error {
	crd, err := s.crds.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	crd.Spec = spec
	_, err = s.crds.Update(ctx, crd, metav1.UpdateOptions{})
	return err
}

// restore gives the CRD its original spec back, and waits until the
// server validates with it: a sentinel property only the restored schema
// allows a value of is written to the object until the server takes it
// (as the format's runner does), then the sentinel is dropped.
func (s *server) restore(ctx context.Context, ri dynamic.ResourceInterface, original *apiextensionsv1.CustomResourceDefinition, stored *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	spec := original.Spec.DeepCopy()
	value := string(stored.GetUID()) + "+restored"
	spec.Versions[0].Schema.OpenAPIV3Schema.Properties["sentinel"] = apiextensionsv1.JSONSchemaProps{Type: "string",
		Enum: []apiextensionsv1.JSON{{Raw: []byte(fmt.Sprintf("%q", value))}}}
	if err := s.setSpec(ctx, original.Name, *spec); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		obj := stored.DeepCopy()
		obj.Object["sentinel"] = value
		got, err := ri.Update(ctx, obj, metav1.UpdateOptions{})
		if err == nil {
			stored = got
			break
		}
		if time.Now().After(deadline) {
			return nil, err
		}
		if fresh, gerr := ri.Get(ctx, stored.GetName(), metav1.GetOptions{}); gerr == nil {
			stored = fresh
		}
		time.Sleep(50 * time.Millisecond)
	}
	return stored, s.setSpec(ctx, original.Name, original.Spec)
}

// matches compares the stored object with the expected one as the format
// says: every top-level field the expected object has, and of its
// metadata the fields it names but its name and namespace.
func matches(stored map[string]any, expectedText string) verdict {
	if expectedText == "" {
		return pass()
	}
	var expected map[string]any
	if err := yaml.Unmarshal([]byte(expectedText), &expected); err != nil {
		return fail("expected: %v", err)
	}
	for k, want := range expected {
		switch k {
		case "apiVersion", "kind":
		case "metadata":
			meta, _ := stored["metadata"].(map[string]any)
			for mk, mv := range want.(map[string]any) {
				if mk != "name" && mk != "namespace" && !reflect.DeepEqual(plain(meta[mk]), plain(mv)) {
					return fail("metadata.%s: %v, want %v", mk, meta[mk], mv)
				}
			}
		default:
			if !reflect.DeepEqual(plain(stored[k]), plain(want)) {
				return fail("%s: %v, want %v", k, stored[k], want)
			}
		}
	}
	return pass()
}

func plain(v any) any {
	data, _ := json.Marshal(v)
	var out any
	_ = json.Unmarshal(data, &out)
	return out
}
