package harness

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/jonboulle/clockwork"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/resource"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/kubectl/pkg/cmd/apply"
	"k8s.io/kubectl/pkg/util"
)

// DryRunner sends objects to a cluster as dry runs with strict field
// validation: the server's answer that kubectl crd validate is compared
// with.
type DryRunner struct {
	config *rest.Config
	mapper meta.RESTMapper
	client dynamic.Interface
}

// NewDryRunner makes a DryRunner for the cluster of config.
func NewDryRunner(config *rest.Config) (*DryRunner, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(config)
	if err != nil {
		return nil, err
	}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return nil, err
	}
	return &DryRunner{config, restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)), client}, nil
}

// Run sends the object in js as a dry-run create, for operation "update"
// as the patch kubectl apply makes of the live object (with kubectl's own
// apply code), for "replace" as a PUT of the object at the live object's
// resourceVersion, and returns the server's refusal. Where
// kubectl's apply code panics (kubectl apply crashes), the error is an
// internal error that says so.
func (r *DryRunner) Run(t *testing.T, js []byte, operation string) (err error) {
	t.Helper()
	defer func() {
		if p := recover(); p != nil {
			err = apierrors.NewInternalError(fmt.Errorf("kubectl's apply code panicked: %v", p))
		}
	}()
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(js); err != nil {
		t.Fatal(err)
	}
	gvk := obj.GroupVersionKind()
	mapping, err := r.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		t.Fatal(err)
	}
	namespace := ""
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		if namespace = obj.GetNamespace(); namespace == "" {
			namespace = "default"
		}
	}
	ri := r.client.Resource(mapping.Resource).Namespace(namespace)
	ctx := context.Background()
	if operation == "create" {
		_, err := ri.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
		return err
	}
	live, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if operation == "replace" {
		if obj.GetResourceVersion() == "" {
			obj.SetResourceVersion(live.GetResourceVersion())
		}
		_, err := ri.Update(ctx, obj, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
		return err
	}
	modified, err := util.GetModifiedConfiguration(obj, true, unstructured.UnstructuredJSONScheme)
	if err != nil {
		t.Fatal(err)
	}
	patcher := &apply.Patcher{
		Mapping:   mapping,
		Helper:    resource.NewHelper(r.restClientFor(t, mapping.GroupVersionKind.GroupVersion()), mapping).DryRun(true).WithFieldValidation("Strict"),
		Overwrite: true,
		BackOff:   clockwork.NewRealClock(),
	}
	_, _, err = patcher.Patch(live, modified, "", namespace, obj.GetName(), io.Discard)
	return err
}

// restClientFor is a client of unstructured objects of one group version,
// as kubectl's factory makes for a mapping.
func (r *DryRunner) restClientFor(t *testing.T, gv schema.GroupVersion) *rest.RESTClient {
	t.Helper()
	config := rest.CopyConfig(r.config)
	config.ContentConfig = resource.UnstructuredPlusDefaultContentConfig()
	config.GroupVersion = &gv
	config.APIPath = "/apis"
	if gv.Group == "" {
		config.APIPath = "/api"
	}
	client, err := rest.RESTClientFor(config)
	if err != nil {
		t.Fatal(err)
	}
	return client
}
