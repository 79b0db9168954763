package crdtest

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset/typed/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestCostMatchesTheServer: for CRDs whose rules cross the per-rule and
// the per-CRD limits, kube-apiserver refuses each rule and total kubectl
// crd cost says it refuses, with the same factor, and nothing else for
// cost; a CRD that fits is created; and each CRD given the bound cost
// suggests for a rule is no longer refused for that rule.
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
	refusals, fits := 0, 0
	for _, c := range list {
		est, ok := byName[c.Name]
		if !ok {
			t.Fatalf("%s: not in the report", c.Name)
		}
		want := wantedRefusals(est)
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
				causes := costCauses(t, err)
				for _, cause := range causes {
					if strings.HasPrefix(cause, rule.Path+": ") {
						t.Errorf("%s with %s %d on %s: still refused: %s", c.Name, d.Keyword, *d.Bound, d.Field, cause)
					}
				}
				_ = crds.Delete(ctx, c.Name, metav1.DeleteOptions{})
			}
		}
	}
	if refusals < 4 || fits != 1 {
		t.Errorf("%d refusals and %d CRDs that fit: the test data should cross each limit", refusals, fits)
	}
}

// wantedRefusals are the server's refusals cost foresees: a rule over
// its limit, the rules it names as making a total too high, a schema
// whose total is over its own.
func wantedRefusals(c cost.CRD) []string {
	var out []string
	v := c.Versions[0] // the versions of these CRDs share one schema
	var contributors []string
	for _, r := range v.Rules {
		if r.Over() {
			out = append(out, r.Path+": Forbidden: "+cost.Refusal(cost.RuleCostName, r.Cost, r.Limit))
		}
		if r.Contributes {
			contributors = append(contributors, r.Path+": Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema")
		}
	}
	sort.Strings(contributors)
	out = append(out, contributors...)
	if v.Over() {
		out = append(out, "spec.validation.openAPIV3Schema: Forbidden: "+cost.Refusal(cost.TotalCostName, v.Total, v.TotalLimit))
	}
	return out
}

// costCauses are the causes of a CRD's refusal that are about cost,
// sorted as cost sorts them (rules, then the total).
func costCauses(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	var se *apierrors.StatusError
	if !errors.As(err, &se) || se.ErrStatus.Details == nil {
		t.Fatalf("not an Invalid status: %v", err)
	}
	var rules, contributors, totals []string
	for _, c := range se.ErrStatus.Details.Causes {
		line := c.Field + ": " + c.Message
		switch {
		case strings.Contains(c.Message, "contributed to estimated rule cost total"):
			contributors = append(contributors, line)
		case strings.Contains(c.Message, "estimated rule cost total"):
			totals = append(totals, line)
		case strings.Contains(c.Message, "estimated rule cost exceeds"):
			rules = append(rules, line)
		}
	}
	sort.Strings(contributors)
	return append(append(rules, contributors...), totals...)
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
