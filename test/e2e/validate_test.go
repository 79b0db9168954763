package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// TestValidatorMatchesServerDryRun checks every test and example object
// with the client-side validator and with the server's dry-run create
// (strict field validation), and compares the verdict and the set of
// (field, type) causes.
func TestValidatorMatchesServerDryRun(t *testing.T) {
	files, err := catalog.ReadFiles(crdDirs, nil)
	if err != nil {
		t.Fatal(err)
	}
	crds, _ := files.List(context.Background())
	byKind := map[schema.GroupKind]*catalog.CRD{}
	for _, c := range crds {
		byKind[schema.GroupKind{Group: c.Spec.Group, Kind: c.Spec.Names.Kind}] = c
	}
	docs, err := manifest.ReadPaths([]string{objectDir, filepath.Join(repoRoot, "examples/objects")}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	client, err := dynamic.NewForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	agree := 0
	for _, d := range docs {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(d.JSON); err != nil {
			t.Fatal(err)
		}
		gvk := obj.GroupVersionKind()
		crd := byKind[gvk.GroupKind()]
		if crd == nil {
			continue
		}
		// A name no object has, so that the dry run is a create.
		obj.SetName(obj.GetName() + "-dry-run")
		t.Run(d.Pos(), func(t *testing.T) {
			v, err := validate.NewValidator(crd.CustomResourceDefinition, gvk.Version)
			if err != nil {
				t.Fatal(err)
			}
			res := v.Create(context.Background(), obj.Object, "")
			got := causeSet(res.Causes())
			if len(res.Unknown) > 0 {
				// The server's strict decoding stops at unknown fields and
				// reports nothing else; the validator reports all.
				got = nil
				for _, u := range res.Unknown {
					got = append(got, "unknown "+u)
				}
			}
			sort.Strings(got)

			ri := client.Resource(schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: crd.Spec.Names.Plural})
			var target dynamic.ResourceInterface = ri
			if crd.Spec.Scope == "Namespaced" {
				ns := obj.GetNamespace()
				if ns == "" {
					ns = "default"
				}
				target = ri.Namespace(ns)
			}
			_, serr := target.Create(context.Background(), obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
			want := serverCauses(serr)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("client-side: %q\nserver: %q (%v)", got, want, serr)
				return
			}
			agree++
		})
	}
	t.Logf("%d objects: client and server agree on %d", len(docs), agree)
}

func causeSet(causes []validate.FieldError) []string {
	var out []string
	for _, c := range causes {
		out = append(out, c.Field+" "+c.Type)
	}
	return out
}

var unknownField = regexp.MustCompile(`unknown field "([^"]+)"`)

// serverCauses lists a dry run's causes as causeSet does, with each
// unknown field of a strict decoding error as "unknown PATH".
func serverCauses(err error) []string {
	if err == nil {
		return nil
	}
	var out []string
	if se, ok := err.(*apierrors.StatusError); ok && se.ErrStatus.Details != nil && len(se.ErrStatus.Details.Causes) > 0 {
		for _, c := range se.ErrStatus.Details.Causes {
			if strings.Contains(c.Message, "unknown field") {
				out = append(out, "unknown "+strings.TrimPrefix(c.Field, "."))
				continue
			}
			out = append(out, c.Field+" "+string(c.Type))
		}
	} else if m := unknownField.FindAllStringSubmatch(err.Error(), -1); apierrors.IsBadRequest(err) && m != nil {
		for _, f := range m {
			out = append(out, "unknown "+f[1])
		}
	} else {
		out = append(out, "error "+err.Error())
	}
	sort.Strings(out)
	return out
}

// TestValidateCommand checks the command's text report (file, line,
// column, field, the server's message), JSON report, CRDs from the input,
// online against offline, and exit codes.
func TestValidateCommand(t *testing.T) {
	invalid := filepath.Join(repoRoot, "examples/objects/invalid/crontabs.yaml")
	offline := []string{"KUBECONFIG="}
	r := bin.Run(t, "kubectl-crd", offline, "validate", "-f", invalid, "--crds", crdDirs[1])
	want := []string{
		invalid + `:7:3: spec.cronSpec: Invalid value: "every night": spec.cronSpec in body should match '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'`,
		invalid + `:14:3: spec.replicas: Invalid value: 11: spec.replicas in body should be less than or equal to 10`,
		invalid + `:22:3: spec.replicas: Invalid value: replicas must be at least minReplicas`,
		invalid + `:28:1: spec: Invalid value: replicas must not exceed maxReplicas`,
		invalid + `:38:3: spec.schedule: unknown field "spec.schedule"`,
		`0 valid, 5 invalid, 0 skipped, 0 errors`,
	}
	if r.Code != 1 || r.Stdout != strings.Join(want, "\n")+"\n" {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", r.Code, r.Stdout, strings.Join(want, "\n"))
	}
	online := bin.Run(t, "kubectl-crd", nil, "validate", "-f", invalid)
	if online.Stdout != r.Stdout || online.Code != 1 {
		t.Errorf("online (exit %d) differs from offline:\n%s", online.Code, online.Stdout)
	}

	// CRDs in the input, JSON output, warnings for unknown fields.
	both := bin.Run(t, "kubectl-crd", offline, "validate", "-f", crdDirs[1], "-f", filepath.Join(repoRoot, "examples/objects"), "-R", "-o", "json", "--validate", "warn")
	var report validate.Report
	if err := json.Unmarshal([]byte(both.Stdout), &report); err != nil {
		t.Fatalf("-o json: %v\n%s", err, both.Stdout)
	}
	if both.Code != 1 || report.Summary != (validate.Summary{Valid: 4, Invalid: 4}) {
		t.Errorf("exit %d, summary %+v", both.Code, report.Summary)
	}
	for _, res := range report.Results {
		if res.Name == "unknown-field" && (res.Status != "valid" || len(res.Warnings) != 1 || res.Warnings[0].Type != "FieldValueUnknown" || res.Warnings[0].Line != 38) {
			t.Errorf("unknown field with --validate=warn: %+v", res)
		}
	}

	valid := bin.Run(t, "kubectl-crd", offline, "validate", "-f", filepath.Join(repoRoot, "examples/objects/valid"), "--crds", crdDirs[1])
	if valid.Code != 0 || !strings.HasSuffix(valid.Stdout, "3 valid, 0 invalid, 0 skipped, 0 errors\n") {
		t.Errorf("valid objects: exit %d\n%s%s", valid.Code, valid.Stdout, valid.Stderr)
	}
	bad := bin.Run(t, "kubectl-crd", offline, "validate", "-f", filepath.Join(repoRoot, "test/testdata/bad/malformed.yaml"), "--crds", crdDirs[1])
	if bad.Code != 2 || !strings.Contains(bad.Stderr, "malformed.yaml:7: invalid YAML") {
		t.Errorf("unreadable input: exit %d, %s", bad.Code, bad.Stderr)
	}
	skipped := bin.Run(t, "kubectl-crd", offline, "validate", "-f", filepath.Join(repoRoot, "test/testdata/crds/doohickeys.gamma.v1beta1.yaml"), "--crds", crdDirs[1])
	if skipped.Code != 0 || !strings.Contains(skipped.Stdout, "ConfigMap/not-a-crd: skipped: no CustomResourceDefinition for ConfigMap") {
		t.Errorf("an object of a kind without CRD: exit %d\n%s", skipped.Code, skipped.Stdout)
	}
}
