package policies

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/warning"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

const configMapPolicies = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: sizes}
spec:
  failurePolicy: Fail
  paramKind: {apiVersion: v1, kind: ConfigMap}
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE, UPDATE], resources: [configmaps], scope: "*"}
    namespaceSelector: {}
    objectSelector: {}
    matchPolicy: Equivalent
  validations:
  - expression: "size(object.data) <= int(params.data.max)"
    messageExpression: "'at most ' + params.data.max + ' keys'"
  - expression: "request.userInfo.username != 'mallory'"
    message: not mallory
  auditAnnotations:
  - {key: keys, valueExpression: "string(size(object.data))"}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: sizes}
spec:
  policyName: sizes
  validationActions: [Deny]
  paramRef: {name: limits, namespace: config, parameterNotFoundAction: Deny}
  matchResources: {namespaceSelector: {matchLabels: {env: prod}}, objectSelector: {}, matchPolicy: Equivalent}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: labels}
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - {apiGroups: [""], apiVersions: [v1], operations: [CREATE], resources: [configmaps], scope: "*"}
    namespaceSelector: {}
    objectSelector: {}
    matchPolicy: Equivalent
  validations:
  - expression: "has(object.metadata.labels) && 'team' in object.metadata.labels"
    message: a team label
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata: {name: labels}
spec:
  policyName: labels
  validationActions: [Warn]
  matchResources: {namespaceSelector: {}, objectSelector: {}, matchPolicy: Equivalent}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: limits, namespace: config}
data: {max: "2"}
---
apiVersion: v1
kind: Namespace
metadata: {name: prod, labels: {env: prod}}
`

// startConfigMapPolicies starts a Chain over configMapPolicies (their
// defaults written out, as the server stores them), sending requests as
// user.
func startConfigMapPolicies(t *testing.T, user string) *Chain {
	t.Helper()
	set := &Set{}
	for _, doc := range strings.Split(configMapPolicies, "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		if err := set.Add(u); err != nil {
			t.Fatal(err)
		}
	}
	configMaps := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	mapper := NewMapper(func(gvk schema.GroupVersionKind) (schema.GroupVersionResource, bool, bool, error) {
		return configMaps, true, gvk == corev1.SchemeGroupVersion.WithKind("ConfigMap"), nil
	}, nil)
	u := User()
	if user != "" {
		u = userNamed(user)
	}
	c, err := Start(set, World{Mapper: mapper, User: u})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) AddWarning(_, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

// TestRunAnswersAsTheServer: the server's order (check runs after
// mutation and before validation; a refused check is not seen by the
// policies), params by name, namespaceSelector, the user, Warn and
// audit annotations, from many requests at once.
func TestRunAnswersAsTheServer(t *testing.T) {
	c := startConfigMapPolicies(t, "")
	o := admission.NewObjectInterfacesFromScheme(clientgoscheme.Scheme)
	send := func(ns string, keys int, team bool, check func() error) (map[string]string, []string, error) {
		cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: ns}, Data: map[string]string{}}
		for i := range keys {
			cm.Data[fmt.Sprint("k", i)] = "v"
		}
		if team {
			cm.Labels = map[string]string{"team": "a"}
		}
		w := &warnings{}
		ctx := warning.WithWarningRecorder(context.Background(), w)
		admitted, err := c.Admit(ctx, Request{Object: cm, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"),
			Resource: corev1.SchemeGroupVersion.WithResource("configmaps"), Namespace: ns, Name: "cm",
			Operation: admission.Create, Options: &metav1.CreateOptions{}, Interfaces: o}, check)
		return admitted.Audit, w.seen, err
	}
	pass := func() error { return nil }
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			keys, team := 1+i%4, i%2 == 0
			audit, warned, err := send("prod", keys, team, pass)
			switch {
			case keys > 2 && (err == nil || !strings.Contains(err.Error(), "ValidatingAdmissionPolicy 'sizes' with binding 'sizes' denied request: at most 2 keys")):
				t.Errorf("%d keys in prod: %v", keys, err)
			case keys <= 2 && err != nil:
				t.Errorf("%d keys in prod: %v", keys, err)
			case audit["sizes/keys"] != fmt.Sprint(keys):
				t.Errorf("%d keys: audit annotations %v", keys, audit)
			case team != (len(warned) == 0):
				t.Errorf("team %v: warnings %v", team, warned)
			}
		})
	}
	wg.Wait()
	if _, _, err := send("dev", 5, true, pass); err != nil {
		t.Errorf("dev is not bound: %v", err)
	}
	refused := errors.New("refused by the strategy")
	if _, warned, err := send("prod", 5, false, func() error { return refused }); !errors.Is(err, refused) || len(warned) > 0 {
		t.Errorf("a refused check: %v, warnings %v; want the check's error and no policy", err, warned)
	}
}

// TestRunAsTheUser: request.userInfo is the chain's user.
func TestRunAsTheUser(t *testing.T) {
	c := startConfigMapPolicies(t, "mallory")
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "prod"}, Data: map[string]string{"a": "b"}}
	_, err := c.Admit(context.Background(), Request{Object: cm, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap"),
		Resource: corev1.SchemeGroupVersion.WithResource("configmaps"), Namespace: "prod", Name: "cm",
		Operation: admission.Create, Options: &metav1.CreateOptions{}, Interfaces: admission.NewObjectInterfacesFromScheme(clientgoscheme.Scheme)},
		func() error { return nil })
	if err == nil || !strings.Contains(err.Error(), "not mallory") {
		t.Errorf("as mallory: %v", err)
	}
}

// userNamed is an authenticated user of that name.
func userNamed(name string) user.Info {
	return &user.DefaultInfo{Name: name, Groups: []string{user.AllAuthenticated}}
}

// TestCloseOnceUnderConcurrentCallers: a chain closed by several
// callers at once (an editor's environment replaced while a check ends)
// closes once: no second close of its channel, and Done is closed.
func TestCloseOnceUnderConcurrentCallers(t *testing.T) {
	c := startConfigMapPolicies(t, "")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(c.Close)
	}
	wg.Wait()
	select {
	case <-c.Done():
	default:
		t.Error("Done is not closed after Close")
	}
}
