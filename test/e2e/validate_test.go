package e2e

import (
	"context"
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
