package builtin

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/internal/applypatch"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/version"
	"sigs.k8s.io/yaml"
)

func kinds(t *testing.T) *Kinds {
	t.Helper()
	k, err := New(nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func lookup(t *testing.T, k *Kinds, apiVersion, kind string) *Kind {
	t.Helper()
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		t.Fatal(err)
	}
	found, err := k.Lookup(gv.WithKind(kind))
	if err != nil || found == nil {
		t.Fatalf("%s %s: %v, %v", apiVersion, kind, found, err)
	}
	return found
}

func body(t *testing.T, y string) []byte {
	t.Helper()
	js, err := yaml.YAMLToJSON([]byte(y))
	if err != nil {
		t.Fatal(err)
	}
	return js
}

// causes lists a result's error as "FIELD TYPE" lines, sorted.
func causes(res Result) []string {
	var out []string
	var de *DecodeError
	var se *apierrors.StatusError
	switch {
	case errors.As(res.Err, &de):
		out = append(out, de.Field+" BadRequest")
	case errors.As(res.Err, &se) && se.ErrStatus.Details != nil:
		for _, c := range se.ErrStatus.Details.Causes {
			out = append(out, c.Field+" "+string(c.Type))
		}
	case res.Err != nil:
		out = append(out, "error "+res.Err.Error())
	}
	for _, u := range res.Unknown {
		out = append(out, u+" unknown")
	}
	sort.Strings(out)
	return out
}

const webDeployment = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: other}}
    spec:
      containers:
      - name: c
        image: nginx
        ports: [{containerPort: 99999}]
`

func TestCreate(t *testing.T) {
	k := kinds(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name, apiVersion, kind, object string
		want                           []string
	}{
		{"webDeployment's selector and port", "apps/v1", "Deployment", webDeployment, []string{
			"spec.template.metadata.labels FieldValueInvalid",
			"spec.template.spec.containers[0].ports[0].containerPort FieldValueInvalid",
		}},
		{"a string for a number, in the second item of a list", "apps/v1", "Deployment", `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - {name: a, image: nginx}
      - {name: b, image: nginx, ports: [{containerPort: 80}, {containerPort: "x"}]}
`, []string{"spec.template.spec.containers[1].ports[1].containerPort BadRequest"}},
		{"unknown fields, with the validation that follows", "apps/v1", "Deployment", strings.Replace(webDeployment, "image: nginx", "image: nginx\n        imagePullPolcy: Always", 1), []string{
			"spec.template.metadata.labels FieldValueInvalid",
			"spec.template.spec.containers[0].imagePullPolcy unknown",
			"spec.template.spec.containers[0].ports[0].containerPort FieldValueInvalid",
		}},
		{"service name and port", "v1", "Service", `apiVersion: v1
kind: Service
metadata: {name: Web_Svc}
spec: {ports: [{port: 99999}]}
`, []string{"metadata.name FieldValueInvalid", "spec.ports[0].port FieldValueInvalid", "spec.ports[0].targetPort FieldValueInvalid"}},
		{"a valid service", "v1", "Service", `apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80}]}
`, nil},
		{"generateName", "v1", "ConfigMap", `apiVersion: v1
kind: ConfigMap
metadata: {generateName: settings-}
data: {a: b}
`, nil},
		{"a cluster-scoped kind", "rbac.authorization.k8s.io/v1", "ClusterRole", `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: reader}
rules: [{verbs: [get]}]
`, []string{"rules[0].apiGroups FieldValueRequired", "rules[0].resources FieldValueRequired"}},
		{"the older of two served versions", "autoscaling/v1", "HorizontalPodAutoscaler", `apiVersion: autoscaling/v1
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: web}, minReplicas: 2, maxReplicas: 1}
`, []string{"spec.maxReplicas FieldValueInvalid"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := lookup(t, k, tc.apiVersion, tc.kind).Create(ctx, body(t, tc.object), "", false, nil)
			if got := causes(res); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q (%v)", got, tc.want, res.Err)
			}
		})
	}
}

// TestCreateKeepsTheStoredObject checks that a valid object comes back
// defaulted as the server stores it, at the version of the request.
func TestCreateKeepsTheStoredObject(t *testing.T) {
	k := kinds(t)
	valid := strings.NewReplacer("app: other", "app: web", "99999", "8080").Replace(webDeployment)
	res := lookup(t, k, "apps/v1", "Deployment").Create(context.Background(), body(t, valid), "team", true, nil)
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	out, err := yaml.Marshal(res.Object)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"apiVersion: apps/v1", "namespace: team", "replicas: 1", "type: RollingUpdate", "protocol: TCP", "terminationMessagePath: /dev/termination-log"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("stored object lacks %q:\n%s", want, out)
		}
	}
}

func TestUpdate(t *testing.T) {
	k := kinds(t)
	old := body(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, resourceVersion: "7", uid: 0c5f0b3c-0000-4000-8000-000000000001}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, image: nginx}]}
`)
	changed := body(t, `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector: {matchLabels: {app: web, tier: front}}
  template:
    metadata: {labels: {app: web, tier: front}}
    spec: {containers: [{name: c, image: nginx}]}
`)
	res := lookup(t, k, "apps/v1", "Deployment").Update(context.Background(), changed, old, false, false, nil)
	if got, want := causes(res), []string{"spec.selector FieldValueInvalid"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q (%v)", got, want, res.Err)
	}
	same := lookup(t, k, "apps/v1", "Deployment").Update(context.Background(), old, old, false, false, nil)
	if same.Err != nil {
		t.Errorf("an unchanged update: %v", same.Err)
	}
}

// TestUpdatePanicsOn: strategic merge code panics on a patch whose list
// item has an object for its merge key (a container named by a map):
// kube-apiserver's as it applies the patch, and the server answers with an
// internal error; or, where the live object has the configuration kubectl
// apply last applied, kubectl's as it computes the patch, and kubectl
// crashes. The check fails as they do, with the panic's message and no
// stack trace, and the field the object alone does not decode at. A panic
// anywhere else in the server's code is a *PanicError (FuzzCheck fails on
// those).
func TestUpdatePanicsOn(t *testing.T) {
	live := `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default, resourceVersion: "5"ANNOTATIONS}
spec: {containers: [{name: a, image: x}]}
`
	lastApplied := `, annotations: {kubectl.kubernetes.io/last-applied-configuration: '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"default"},"spec":{"containers":[{"name":"a","image":"x"}]}}'}`
	named := body(t, `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: default}
spec: {containers: [{name: {x: 1}, image: nginx}]}
`)
	for _, tc := range []struct {
		annotations string
		server      bool
	}{{"", true}, {lastApplied, false}} {
		old := body(t, strings.Replace(live, "ANNOTATIONS", tc.annotations, 1))
		res := lookup(t, kinds(t), "v1", "Pod").Update(context.Background(), named, old, false, false, nil)
		var panicked *PanicError
		var patching *applypatch.PanicError
		var decoding *DecodeError
		switch {
		case !errors.As(res.Err, &patching) || patching.Server != tc.server:
			t.Fatalf("%v, want a panic of the server's code %v", res.Err, tc.server)
		case errors.As(res.Err, &panicked):
			t.Errorf("%v: a panic the server does not have", res.Err)
		case errors.As(res.Err, &decoding):
			t.Errorf("%v: a decoding error, where the server fails", res.Err)
		case !strings.Contains(res.Err.Error(), "comparing uncomparable type") || strings.Contains(res.Err.Error(), "goroutine"):
			t.Errorf("%q, want the panic's message and no stack", res.Err)
		case !strings.Contains(res.Err.Error(), "as a new object: spec.containers[0].name: "):
			t.Errorf("%q, want the field that the object alone fails to decode at", res.Err)
		}
	}
}

// TestUpdateAsApplied checks that an update keeps what the server and
// controllers set, as kubectl apply's merge does: a Job's generated
// selector, a Service's cluster IP. A replace would lose them.
func TestUpdateAsApplied(t *testing.T) {
	k := kinds(t)
	ctx := context.Background()
	liveJob := body(t, `apiVersion: batch/v1
kind: Job
metadata: {name: once, namespace: default, resourceVersion: "3", uid: 8d0f1c52-0000-4000-8000-000000000002}
spec:
  selector: {matchLabels: {batch.kubernetes.io/controller-uid: 8d0f1c52-0000-4000-8000-000000000002}}
  template:
    metadata:
      labels: {batch.kubernetes.io/controller-uid: 8d0f1c52-0000-4000-8000-000000000002, batch.kubernetes.io/job-name: once, controller-uid: 8d0f1c52-0000-4000-8000-000000000002, job-name: once}
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
`)
	job := body(t, `apiVersion: batch/v1
kind: Job
metadata: {name: once, labels: {team: a}}
spec:
  template:
    spec: {restartPolicy: Never, containers: [{name: c, image: busybox}]}
`)
	if res := lookup(t, k, "batch/v1", "Job").Update(ctx, job, liveJob, false, false, nil); res.Err != nil {
		t.Errorf("a Job applied again with a new label: %v", res.Err)
	}
	changedImage := strings.Replace(string(job), "busybox", "alpine", 1)
	if got := causes(lookup(t, k, "batch/v1", "Job").Update(ctx, []byte(changedImage), liveJob, false, false, nil)); !slices.Equal(got, []string{"spec.template FieldValueInvalid"}) {
		t.Errorf("a Job's template changed: %q, want the immutable template", got)
	}
	liveService := body(t, `apiVersion: v1
kind: Service
metadata: {name: web, namespace: default, resourceVersion: "4", uid: 8d0f1c52-0000-4000-8000-000000000003}
spec: {clusterIP: 10.0.0.12, clusterIPs: [10.0.0.12], ipFamilies: [IPv4], ipFamilyPolicy: SingleStack, type: ClusterIP, selector: {app: web}, ports: [{port: 80, targetPort: 80, protocol: TCP}]}
`)
	service := body(t, `apiVersion: v1
kind: Service
metadata: {name: web}
spec: {selector: {app: web}, ports: [{port: 80}, {name: metrics, port: 9090}]}
`)
	res := lookup(t, k, "v1", "Service").Update(ctx, service, liveService, false, false, nil)
	if got := causes(res); !slices.Equal(got, []string{"spec.ports[0].name FieldValueRequired"}) {
		t.Errorf("a Service given a second port without naming the first: %q (%v)", got, res.Err)
	}
}

func TestLookup(t *testing.T) {
	k := kinds(t)
	for _, tc := range []struct {
		gvk  schema.GroupVersionKind
		want string
	}{
		{schema.GroupVersionKind{Group: "extensions", Version: "v1beta1", Kind: "Ingress"}, `no matches for kind "Ingress" in version "extensions/v1beta1"`},
		{schema.GroupVersionKind{Group: "policy", Version: "v1beta1", Kind: "PodSecurityPolicy"}, `no matches for kind "PodSecurityPolicy" in version "policy/v1beta1"`},
		{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deploymnet"}, `no matches for kind "Deploymnet" in version "apps/v1"`},
		{schema.GroupVersionKind{Group: "authentication.k8s.io", Version: "v1", Kind: "TokenReview"}, "unchecked"},
		{schema.GroupVersionKind{Group: "stable.example.com", Version: "v1", Kind: "CronTab"}, "not built in"},
	} {
		found, err := k.Lookup(tc.gvk)
		var got string
		var ns *NotServedError
		var un *UncheckedError
		switch {
		case errors.As(err, &ns):
			got = err.Error()
		case errors.As(err, &un):
			got = "unchecked"
		case err == nil && found == nil:
			got = "not built in"
		default:
			got = "found"
		}
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.gvk, got, tc.want)
		}
	}
	// A cluster's discovery decides what is served: here, a beta version
	// whose resource kubectl crd knows.
	beta := schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1beta2", Kind: "DeviceClass"}
	online, err := New(nil, func(gvk schema.GroupVersionKind) (bool, error) { return gvk == beta, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if found, err := online.Lookup(beta); err != nil || found == nil || found.Resource.Version != "v1beta2" {
		t.Errorf("a version the cluster serves: %v, %v", found, err)
	}
	if _, err := online.Lookup(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}); !errors.As(err, new(*NotServedError)) {
		t.Errorf("a version the cluster does not serve: %v", err)
	}
}

// TestResources checks the list against the scheme: every kind at every
// version it lists is one the scheme decodes, at the scope its strategy
// says.
func TestResources(t *testing.T) {
	seen := map[schema.GroupKind]bool{}
	k := kinds(t)
	for _, r := range resources(nil, k.schemes[0], k.schemes[1]) {
		gk := schema.GroupKind{Group: r.gr.Group, Kind: r.kind}
		if seen[gk] {
			t.Errorf("%s listed twice", gk)
		}
		seen[gk] = true
		for _, v := range r.versions {
			if r.strategy == nil {
				continue
			}
			if !r.scheme.Recognizes(gk.WithVersion(v)) {
				t.Errorf("%s/%s: not in the scheme", gk, v)
			}
		}
	}
}

// TestDeprecatedVersion checks the server's warning for a deprecated
// version a cluster still serves.
func TestDeprecatedVersion(t *testing.T) {
	beta := schema.GroupVersionKind{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta3", Kind: "FlowSchema"}
	k, err := New(nil, func(gvk schema.GroupVersionKind) (bool, error) { return gvk == beta, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	found, err := k.Lookup(beta)
	if err != nil || found == nil {
		t.Fatalf("%v, %v", found, err)
	}
	if want := "flowcontrol.apiserver.k8s.io/v1beta3 FlowSchema is deprecated in v1.29+, unavailable in v1.32+; use flowcontrol.apiserver.k8s.io/v1 FlowSchema"; found.Deprecated != want {
		t.Errorf("warning %q, want %q", found.Deprecated, want)
	}
	if current := lookup(t, kinds(t), "flowcontrol.apiserver.k8s.io/v1", "FlowSchema"); current.Deprecated != "" {
		t.Errorf("v1: %q", current.Deprecated)
	}
}

// TestServiceClusterIPs checks what a Service's storage does to its IPs
// before validation: a headless Service written with clusterIP alone is
// valid, and a changed clusterIP is refused at clusterIPs[0], where the
// server refuses it.
func TestServiceClusterIPs(t *testing.T) {
	k := kinds(t)
	ctx := context.Background()
	headless := body(t, `apiVersion: v1
kind: Service
metadata: {name: db, namespace: default}
spec: {clusterIP: None, selector: {app: db}, ports: [{port: 5432}]}
`)
	svc := lookup(t, k, "v1", "Service")
	if res := svc.Create(ctx, headless, "", false, nil); res.Err != nil {
		t.Errorf("a headless Service: %v", res.Err)
	}
	mismatched := body(t, `apiVersion: v1
kind: Service
metadata: {name: db, namespace: default}
spec: {clusterIP: None, clusterIPs: [10.0.0.9], selector: {app: db}, ports: [{port: 5432}]}
`)
	if got := causes(svc.Create(ctx, mismatched, "", false, nil)); !slices.Contains(got, "spec.clusterIPs FieldValueInvalid") {
		t.Errorf("clusterIPs other than clusterIP: %q, want spec.clusterIPs invalid", got)
	}
	live := body(t, `apiVersion: v1
kind: Service
metadata: {name: db, namespace: default, resourceVersion: "4", uid: 8d0f1c52-0000-4000-8000-000000000004}
spec: {clusterIP: 10.0.0.12, clusterIPs: [10.0.0.12], ipFamilies: [IPv4], ipFamilyPolicy: SingleStack, type: ClusterIP, selector: {app: db}, ports: [{port: 5432, targetPort: 5432, protocol: TCP}]}
`)
	if got := causes(svc.Update(ctx, headless, live, false, false, nil)); !slices.Equal(got, []string{"spec.clusterIPs[0] FieldValueInvalid"}) {
		t.Errorf("clusterIP changed to None: %q, want spec.clusterIPs[0] invalid", got)
	}
	unchanged := body(t, `apiVersion: v1
kind: Service
metadata: {name: db, namespace: default, labels: {tier: data}}
spec: {clusterIP: 10.0.0.12, selector: {app: db}, ports: [{port: 5432}]}
`)
	if res := svc.Update(ctx, unchanged, live, false, false, nil); res.Err != nil {
		t.Errorf("clusterIP given as it is: %v", res.Err)
	}
}

// TestDeprecatedAtTheVersionAnsweredAs: a version is deprecated as the
// Kubernetes version answered as measures it, not as this build's:
// resource.k8s.io/v1beta2 (deprecated in 1.36), served by a cluster that
// enables it, warns at 1.37 and not at 1.34.
func TestDeprecatedAtTheVersionAnsweredAs(t *testing.T) {
	servedAll := func(schema.GroupVersionKind) (bool, error) { return true, nil }
	gvk := schema.GroupVersionKind{Group: "resource.k8s.io", Version: "v1beta2", Kind: "ResourceClaim"}
	for v, deprecated := range map[string]bool{"1.34": false, "1.35": false, "1.36": true, "1.37": true} {
		k, err := New(version.MustParse(v), servedAll, nil)
		if err != nil {
			t.Fatal(err)
		}
		kind, err := k.Lookup(gvk)
		if err != nil {
			t.Fatal(err)
		}
		if got := kind.Deprecated != ""; got != deprecated {
			t.Errorf("at %s: deprecated %q, want deprecated %v", v, kind.Deprecated, deprecated)
		}
	}
}
