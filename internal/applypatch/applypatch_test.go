package applypatch

import (
	"encoding/json"
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

func TestApply(t *testing.T) {
	live := []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a","resourceVersion":"7",
		"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"apiVersion\":\"stable.example.com/v1\",\"kind\":\"CronTab\",\"metadata\":{\"name\":\"a\"},\"spec\":{\"image\":\"x\",\"note\":\"gone\"}}\n"}},
		"spec":{"image":"x","note":"gone","replicas":1}}`)
	for _, tc := range []struct {
		name, body, want string
		unchanged        bool
	}{
		{"a field set by the server stays, one the file no longer has goes", `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"image":"y"}}`,
			`{"image":"y","replicas":1}`, false},
	} {
		out, unchanged, err := Apply([]byte(tc.body), live, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var obj struct{ Spec json.RawMessage }
		if err := json.Unmarshal(out, &obj); err != nil {
			t.Fatal(err)
		}
		if string(obj.Spec) != tc.want || unchanged != tc.unchanged {
			t.Errorf("%s: spec %s, unchanged %v; want %s, %v", tc.name, obj.Spec, unchanged, tc.want, tc.unchanged)
		}
	}
	// Applied again, the same file changes nothing.
	body := []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"image":"z"}}`)
	once, _, err := Apply(body, live, nil)
	if err != nil {
		t.Fatal(err)
	}
	if again, unchanged, err := Apply(body, once, nil); err != nil || !unchanged || string(again) != string(once) {
		t.Errorf("applied twice: unchanged %v, %v", unchanged, err)
	}
	if _, _, err := Apply([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"b"}}`), live, nil); err == nil {
		t.Error("a file naming another object: no error")
	}
	// A strategic merge patch merges a list of containers by name.
	deployment := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"},{"name":"b","image":"y"}]}}}}`)
	out, _, err := Apply([]byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[{"name":"b","image":"z"}]}}}}`), deployment, &appsv1.Deployment{})
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := json.Unmarshal(out, &d); err != nil {
		t.Fatal(err)
	}
	if c := d.Spec.Template.Spec.Containers; len(c) != 2 || c[0].Image != "x" || c[1].Image != "z" {
		t.Errorf("containers %+v: want a kept (no configuration applied before named it) and b changed", c)
	}
	// Strategic merge code panics on a merge key that is not a string or a
	// number: the server's as it applies the patch, or, where the live
	// object has the configuration last applied, kubectl's as it computes
	// it. An error, not a panic.
	named := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[{"name":{"b":1},"image":"z"}]}}}}`)
	applied := []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","annotations":{"kubectl.kubernetes.io/last-applied-configuration":` +
		`"{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"d\"},\"spec\":{\"template\":{\"spec\":{\"containers\":[{\"name\":\"a\",\"image\":\"x\"}]}}}}"}},` +
		`"spec":{"template":{"spec":{"containers":[{"name":"a","image":"x"}]}}}}`)
	for _, tc := range []struct {
		live   []byte
		server bool
	}{{deployment, true}, {applied, false}} {
		_, _, err = Apply(named, tc.live, &appsv1.Deployment{})
		var panicked *PanicError
		if !errors.As(err, &panicked) || panicked.Server != tc.server {
			t.Errorf("a container named by an object: %v, want a *PanicError of the server's code %v", err, tc.server)
		}
	}
}
