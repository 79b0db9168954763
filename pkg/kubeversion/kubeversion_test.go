package kubeversion_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"k8s.io/apimachinery/pkg/util/version"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]string{"1.34": "1.34", "v1.35": "1.35", "v1.36.2": "1.36", "1.37.0-rc.1": "1.37"} {
		v, err := kubeversion.Parse(in)
		if err != nil || v.String() != want {
			t.Errorf("Parse(%q) = %v, %v; want %s", in, v, err, want)
		}
	}
	for _, in := range []string{"", "1", "one.two", "latest"} {
		if v, err := kubeversion.Parse(in); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", in, v)
		}
	}
}

func TestOfServer(t *testing.T) {
	for _, c := range []struct {
		info      apimachineryversion.Info
		v, minCom string
	}{
		{apimachineryversion.Info{Major: "1", Minor: "37", EmulationMajor: "1", EmulationMinor: "34", MinCompatibilityMajor: "1", MinCompatibilityMinor: "34"}, "1.34", "1.34"},
		{apimachineryversion.Info{Major: "1", Minor: "35"}, "1.35", "<nil>"},
		{apimachineryversion.Info{Major: "1", Minor: "30+"}, "1.30", "<nil>"},
	} {
		v, minCom, err := kubeversion.OfServer(&c.info)
		if err != nil || v.String() != c.v || minCom.String() != c.minCom {
			t.Errorf("OfServer(%+v) = %v, %v, %v; want %s, %s", c.info, v, minCom, err, c.v, c.minCom)
		}
	}
	if _, _, err := kubeversion.OfServer(&apimachineryversion.Info{}); err == nil {
		t.Error("OfServer of an empty /version: want an error")
	}
}

// distinctRule is a CRD whose rule uses a list function of the CEL
// library introduced in Kubernetes 1.34, which a new rule may use only
// where the minimum compatibility version is 1.34 or later.
const distinctRule = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"widgets.x.example.com"},
"spec":{"group":"x.example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},
"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{
"type":"object","x-kubernetes-validations":[{"rule":"self.tags.distinct() == self.tags"}],
"properties":{"tags":{"type":"array","maxItems":5,"items":{"type":"string","maxLength":5}}}}}}}}]}}`

// TestUseChangesTheAnswers: the same CRD is refused as Kubernetes 1.34
// answers (its minimum compatibility version, 1.33, lacks the library)
// and accepted as 1.35 and the newest answer; out of range is an error
// naming the range, and changes nothing.
func TestUseChangesTheAnswers(t *testing.T) {
	oldest, newest := kubeversion.Range()
	if !newest.GreaterThan(oldest) {
		t.Fatalf("Range() = %s, %s", oldest, newest)
	}
	t.Cleanup(func() { _ = kubeversion.Use(newest, nil, false) })
	for _, c := range []struct {
		v       string
		refused bool
	}{{"1.34", true}, {"1.35", false}, {newest.String(), false}} {
		if err := kubeversion.Use(version.MustParse(c.v), nil, false); err != nil {
			t.Fatal(err)
		}
		if got := kubeversion.Current().String(); got != c.v {
			t.Errorf("Current() = %s after Use(%s)", got, c.v)
		}
		res := validate.CRD(context.Background(), []byte(distinctRule), nil)
		if refused := res.Err != nil && strings.Contains(res.Err.Error(), "undeclared reference to 'distinct'"); refused != c.refused {
			t.Errorf("as %s: %v; want refused %v", c.v, res.Err, c.refused)
		}
	}
	for _, v := range []*version.Version{oldest.SubtractMinor(1), newest.AddMinor(1)} {
		err := kubeversion.Use(v, nil, false)
		var out *kubeversion.OutOfRangeError
		if !errors.As(err, &out) || !strings.Contains(err.Error(), oldest.String()+" to "+newest.String()) {
			t.Errorf("Use(%s) = %v; want an error naming %s to %s", v, err, oldest, newest)
		}
	}
	if got := kubeversion.Current().String(); got != newest.String() {
		t.Errorf("Current() = %s after refused versions, want %s", got, newest)
	}
	err := kubeversion.Use(oldest.SubtractMinor(4), nil, true)
	if err == nil || !strings.Contains(err.Error(), "--kubernetes-version "+oldest.String()) {
		t.Errorf("a cluster older than the range: %v; want the flag to pass named", err)
	}
}
