package crdtest

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	"github.com/kubectl-crd/kubectl-crd/test/harness"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestCostMatchesTheServer: for CRDs whose rules and messageExpressions
// cross the per-expression and the per-CRD limits, kube-apiserver refuses
// each expression and total kubectl crd cost says it refuses, with the same
// factor, and nothing else for cost; the CRDs that fit (one with a
// messageExpression under a large cardinality) are created; and each CRD
// given the bound cost suggests for a rule is created, or else no longer
// refused for that rule.
func TestCostMatchesTheServer(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(repoRoot, "test/testdata/cost/expensive.yaml")
	r := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "cost", "-f", file, "-o", "json")
	var report cost.Report
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil || r.Code != 1 {
		t.Fatalf("exit %d, %v\n%s", r.Code, err, r.Stderr)
	}
	files, err := catalog.ReadFiles([]string{file}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	list, err := files.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	client, err := apiextensionsclient.NewForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	crds := client.CustomResourceDefinitions()
	byName := map[string]cost.CRD{}
	for _, c := range report.CRDs {
		byName[c.Name] = c
	}
	refusals, fits, bounds, created := 0, 0, 0, 0
	for _, c := range list {
		est, ok := byName[c.Name]
		if !ok {
			t.Fatalf("%s: not in the report", c.Name)
		}
		want := harness.CostRefusals(est)
		_, err := crds.Create(ctx, fresh(c.CustomResourceDefinition), metav1.CreateOptions{})
		got := costCauses(t, err)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: the server refuses\n%s\nkubectl crd cost says it refuses\n%s", c.Name, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		refusals += len(want)
		if len(want) == 0 {
			fits++
			_ = crds.Delete(ctx, c.Name, metav1.DeleteOptions{})
		}
		// With the bound cost suggests, the rule is not refused.
		for _, rule := range est.Versions[0].Rules {
			if !rule.Over() {
				continue
			}
			for _, d := range rule.Drivers {
				if d.Bound == nil {
					continue
				}
				bounded := fresh(c.CustomResourceDefinition)
				if err := setBound(bounded, d); err != nil {
					t.Fatal(err)
				}
				_, err := crds.Create(ctx, bounded, metav1.CreateOptions{})
				bounds++
				if err == nil {
					created++
				}
				causes := costCauses(t, err)
				for _, cause := range causes {
					if strings.HasPrefix(cause, rule.Path+": ") {
						t.Errorf("%s with %s %d on %s: still refused: %s", c.Name, d.Keyword, *d.Bound, d.Field, cause)
					}
				}
				// Where the rule was all the server refused, the bound
				// makes the CRD one the server creates.
				if len(want) == 1 && err != nil {
					t.Errorf("%s with %s %d on %s: not created: %v", c.Name, d.Keyword, *d.Bound, d.Field, err)
				}
				_ = crds.Delete(ctx, c.Name, metav1.DeleteOptions{})
			}
		}
	}
	if bounds == 0 || created == 0 {
		t.Errorf("%d bounds tried, %d CRDs created with one: the test data should have rules a bound makes fit", bounds, created)
	}
	if refusals < 5 || fits != 2 {
		t.Errorf("%d refusals and %d CRDs that fit: the test data should cross each limit", refusals, fits)
	}
}

// costCauses are the causes of a CRD's refusal that are about cost,
// sorted as harness.CostRefusals sorts its own.
func costCauses(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Details == nil {
		t.Fatalf("not an Invalid status: %v", err)
	}
	var lines []string
	for _, c := range se.ErrStatus.Details.Causes {
		lines = append(lines, c.Field+": "+c.Message)
	}
	return harness.CostCauses(lines)
}

// fresh is a CRD as a user creates it.
func fresh(crd *apiextensionsv1.CustomResourceDefinition) *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: crd.Name}, Spec: *crd.Spec.DeepCopy()}
}

// setBound sets a driver's bound on every version's schema: the field
// (spec.items[*].name) is followed through properties, items and
// additionalProperties in the schema's JSON.
func setBound(crd *apiextensionsv1.CustomResourceDefinition, d cost.Driver) error {
	for i := range crd.Spec.Versions {
		v := &crd.Spec.Versions[i]
		data, err := json.Marshal(v.Schema.OpenAPIV3Schema)
		if err != nil {
			return err
		}
		var s map[string]any
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		node := s
		for _, step := range strings.Split(strings.ReplaceAll(d.Field, "[*]", ".[*]"), ".") {
			var next any
			switch step {
			case "[*]":
				next = node["items"]
			case "*":
				next = node["additionalProperties"]
			default:
				props, _ := node["properties"].(map[string]any)
				next = props[step]
			}
			if node, _ = next.(map[string]any); node == nil {
				return errors.New("no field " + d.Field)
			}
		}
		node[d.Keyword] = *d.Bound
		if data, err = json.Marshal(s); err != nil {
			return err
		}
		v.Schema.OpenAPIV3Schema = &apiextensionsv1.JSONSchemaProps{}
		if err := json.Unmarshal(data, v.Schema.OpenAPIV3Schema); err != nil {
			return err
		}
	}
	return nil
}
