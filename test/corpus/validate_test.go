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
	// Objects of CRDs that convert through a webhook are validated offline,
	// against those CRDs as files: the test cluster runs no conversion
	// webhook, so it retries lists of them for seconds (validate lists
	// what exists, online); their creates need no conversion.
	type input struct {
		objs  []*unstructured.Unstructured
		where []string
		data  bytes.Buffer
		crds  bytes.Buffer
	}
	var online, offline input
	seen := map[*apiextensionsv1.CustomResourceDefinition]bool{}
	for _, d := range append(append([]manifest.Document(nil), accepted...), refused...) {
		obj := &unstructured.Unstructured{}
		if obj.UnmarshalJSON(d.JSON) != nil || crds[obj.GroupVersionKind().GroupKind()] == nil {
			continue
		}
		in, crd := &online, crds[obj.GroupVersionKind().GroupKind()]
		if c := crd.Spec.Conversion; c != nil && c.Strategy == apiextensionsv1.WebhookConverter {
			in = &offline
			if !seen[crd] {
				seen[crd] = true
				b, err := json.Marshal(crd)
				if err != nil {
					t.Fatal(err)
				}
				in.crds.Write(append(b, '\n'))
			}
		}
		obj.SetName(obj.GetName() + "-dry-run")
		b, err := obj.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		in.data.Write(append(b, '\n'))
		in.objs = append(in.objs, obj)
		in.where = append(in.where, d.Pos())
	}
	dir := t.TempDir()
	write := func(name string, b *bytes.Buffer) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var report validate.Report
	for _, run := range []struct {
		in   *input
		args []string
	}{
		{&online, []string{"validate", "-o", "json", "-f", write("online.json", &online.data)}},
		{&offline, []string{"validate", "-o", "json", "--offline", "--crds", write("crds.json", &offline.crds), "-f", write("offline.json", &offline.data)}},
	} {
		r := bin.Run(t, "kubectl-crd", nil, run.args...)
		var part validate.Report
		if err := json.Unmarshal([]byte(r.Stdout), &part); err != nil || len(part.Results) != len(run.in.objs) {
			t.Fatalf("%v: exit %d, %v, %d results for %d objects\n%s", run.args, r.Code, err, len(part.Results), len(run.in.objs), r.Stderr)
		}
		report.Results = append(report.Results, part.Results...)
	}
	objs := append(online.objs, offline.objs...)
	where := append(online.where, offline.where...)
	t.Logf("%d objects validated online, %d offline (their CRDs convert through a webhook)", len(online.objs), len(offline.objs))

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
			// The server cannot store the object at all without the webhook.
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
	t.Logf("%d objects checked; kubectl crd validate and the server agree on %d (%d more left out: the server needs the conversion webhook the test cluster does not run)", checked, agree, webhook)
}
