package harness

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/sample"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// SampleTally counts the samples the server accepted, by kind of sample.
type SampleTally struct {
	Made, Accepted map[bool]int // by Full
	// Unjudged are the versions the test server cannot take an object
	// of: a version other than the storage one of a CRD whose conversion
	// webhook is not running here.
	Unjudged []string
	// Refusals are the server's reasons, by sample.
	Refusals []string
}

// SampleAgainstServer makes the minimal and the full sample of every
// served version of crds (created in the cluster of config) and sends each
// to the server as a dry-run create with strict field validation. Where
// the server's verdict differs from the sample's own (accepted when
// Refused is empty), the test fails: the sample checks with the server's
// code, so they must agree.
func SampleAgainstServer(t *testing.T, config *rest.Config, crds []*apiextensionsv1.CustomResourceDefinition) SampleTally {
	t.Helper()
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tally := SampleTally{Made: map[bool]int{}, Accepted: map[bool]int{}}
	for _, crd := range crds {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			if c := crd.Spec.Conversion; c != nil && c.Strategy == apiextensionsv1.WebhookConverter && !v.Storage {
				tally.Unjudged = append(tally.Unjudged, crd.Name+" "+v.Name)
				continue
			}
			for _, full := range []bool{false, true} {
				s, err := sample.Make(ctx, crd, v.Name, sample.Options{Full: full})
				if err != nil {
					t.Errorf("%s %s: %v", crd.Name, v.Name, err)
					continue
				}
				tally.Made[full]++
				obj := &unstructured.Unstructured{Object: s.Object}
				res := client.Resource(schema.GroupVersionResource{Group: crd.Spec.Group, Version: v.Name, Resource: crd.Spec.Names.Plural})
				var ri dynamic.ResourceInterface = res
				if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
					ri = res.Namespace("default")
				}
				_, err = ri.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
				if err == nil {
					tally.Accepted[full]++
				} else {
					tally.Refusals = append(tally.Refusals, fmt.Sprintf("%s %s (full %v): %s", crd.Name, v.Name, full, firstLine(err.Error())))
				}
				if ours := len(s.Refused) == 0; ours != (err == nil) {
					t.Errorf("%s %s (full %v): the sample says accepted=%v (%v), the server: %v", crd.Name, v.Name, full, ours, s.Refused, err)
				}
			}
		}
	}
	sort.Strings(tally.Refusals)
	return tally
}

// Percent is the share of samples accepted.
func (s SampleTally) Percent(full bool) float64 {
	return 100 * float64(s.Accepted[full]) / float64(max(s.Made[full], 1))
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
