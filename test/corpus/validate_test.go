package corpus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

var unknownField = regexp.MustCompile(`unknown field "([^"]+)"`)

// TestValidateMatchesServerDryRun runs kubectl crd validate -o json
// (online) over every corpus example of a loaded CRD (those the server
// created and those it refused, renamed so that each is a create) and
// sends each to the server as a dry-run create (strict field validation):
// the verdicts and the (field, type) causes must be equal. The server's
// strict decoding reports only the unknown fields; so are ours compared
// then.
func TestValidateMatchesServerDryRun(t *testing.T) {
	needCorpus(t)
	crds := map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition{}
	for _, list := range projects {
		for _, c := range list {
			crds[schema.GroupKind{Group: c.Spec.Group, Kind: c.Spec.Names.Kind}] = c
		}
	}
	var objs []*unstructured.Unstructured
	var where []string
	var input bytes.Buffer
	for _, d := range append(append([]manifest.Document(nil), accepted...), refused...) {
		obj := &unstructured.Unstructured{}
		if obj.UnmarshalJSON(d.JSON) != nil || crds[obj.GroupVersionKind().GroupKind()] == nil {
			continue
		}
		obj.SetName(obj.GetName() + "-dry-run")
		b, err := obj.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		input.Write(append(b, '\n'))
		objs = append(objs, obj)
		where = append(where, d.Pos())
	}
	file := filepath.Join(t.TempDir(), "corpus.json")
	if err := os.WriteFile(file, input.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	r := bin.Run(t, "kubectl-crd", nil, "validate", "-o", "json", "-f", file)
	var report validate.Report
	if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil || len(report.Results) != len(objs) {
		t.Fatalf("exit %d, %v, %d results for %d objects\n%s", r.Code, err, len(report.Results), len(objs), r.Stderr)
	}

	client, err := dynamic.NewForConfig(testCluster.Config)
	if err != nil {
		t.Fatal(err)
	}
	checked, agree, webhook := 0, 0, 0
	for i, obj := range objs {
		res := report.Results[i]
		gvk := obj.GroupVersionKind()
		crd := crds[gvk.GroupKind()]
		ri := client.Resource(schema.GroupVersionResource{Group: gvk.Group, Version: gvk.Version, Resource: crd.Spec.Names.Plural})
		var target dynamic.ResourceInterface = ri
		if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
			ns := obj.GetNamespace()
			if ns == "" {
				ns = "default"
			}
			target = ri.Namespace(ns)
		}
		_, serr := target.Create(context.Background(), obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}, FieldValidation: "Strict"})
		if serr != nil && strings.Contains(serr.Error(), "conversion webhook") {
			// The CRD converts through a webhook the test cluster does not
			// run: the server cannot store the object at all.
			webhook++
			continue
		}
		checked++
		var got, want []string
		for _, p := range res.Errors {
			if p.Type == "FieldValueUnknown" {
				got = append(got, "unknown "+p.Field)
			}
		}
		if got == nil {
			for _, p := range res.Errors {
				got = append(got, p.Field+" "+p.Type)
			}
		}
		sort.Strings(got)
		switch se, ok := serr.(*apierrors.StatusError); {
		case serr == nil:
		case apierrors.IsNotFound(serr):
			// A version the CRD does not serve: the server has no such
			// resource; we say the apiVersion is not served.
			want = []string{"apiVersion FieldValueNotSupported"}
		case ok && se.ErrStatus.Details != nil && len(se.ErrStatus.Details.Causes) > 0:
			for _, c := range se.ErrStatus.Details.Causes {
				want = append(want, c.Field+" "+string(c.Type))
			}
		case apierrors.IsBadRequest(serr) && unknownField.MatchString(serr.Error()):
			for _, m := range unknownField.FindAllStringSubmatch(serr.Error(), -1) {
				want = append(want, "unknown "+m[1])
			}
		default:
			want = append(want, "error "+serr.Error())
		}
		sort.Strings(want)
		if fmt.Sprint(got) == fmt.Sprint(want) && (serr == nil) == (res.Status == "valid") {
			agree++
		} else {
			t.Errorf("%s: kubectl crd validate %s %q, server %q", where[i], res.Status, got, want)
		}
	}
	t.Logf("%d objects checked; kubectl crd validate and the server agree on %d (%d more left out: their conversion webhook is not running)", checked, agree, webhook)
}
