package catalog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
)

// everyField is a v1 CRD as a cluster returns it, with every field an
// outline keeps set, and the schema it does not keep.
const everyField = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: things.outline.example.com
  labels: {app: things, tier: "1"}
  annotations: {note: not kept}
  creationTimestamp: "2024-05-06T07:08:09Z"
spec:
  group: outline.example.com
  scope: Namespaced
  names: {plural: things, kind: Thing, shortNames: [th], categories: [all, stuff]}
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        service: {namespace: system, name: things-webhook, path: /convert}
  versions:
  - name: v1alpha1
    served: false
    storage: false
    deprecated: true
    deprecationWarning: use v1
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
  - name: v1
    served: true
    storage: true
    subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
status:
  storedVersions: [v1alpha1, v1]
  acceptedNames: {plural: things, kind: Thing}
  conditions:
  - {type: Established, status: "False", reason: Installing, message: not yet, lastTransitionTime: "2024-05-06T07:08:10Z"}
`

// TestOutlineIsTheDecodedCRDsOutline: the outline read from a v1 document
// without decoding its schemas, and the outline an index entry keeps of
// it, are Outline of the CRD decoded whole as the server decodes it, for
// every CRD of the test data and examples (and of the shared corpus when
// KUBECTL_CRD_CORPUS names it). What list shows is read from outlines.
func TestOutlineIsTheDecodedCRDsOutline(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "everyfield.yaml"), []byte(everyField), 0o644); err != nil {
		t.Fatal(err)
	}
	roots := []string{dir, testdata(), filepath.Join("..", "..", "examples")}
	if corpus := os.Getenv("KUBECTL_CRD_CORPUS"); corpus != "" {
		roots = append(roots, corpus)
	}
	x := testIndex(t)
	compared := 0
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(path string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(path, ".yaml") && !strings.HasSuffix(path, ".yml") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			docs := manifest.ReadLenient(path, data)
			crds, err := fileCRDs(docs)
			if err != nil {
				return nil // the test data's broken CRDs
			}
			if len(crds) == 0 {
				return nil
			}
			identity, changed, err := fileIdentity(path)
			if err != nil {
				t.Fatal(err)
			}
			x.store(path, identity, changed, crds)
			fromIndex, err := x.read(path)
			if err != nil || len(fromIndex) != len(crds) {
				t.Errorf("%s: %d CRDs, %d from the index (%v)", path, len(crds), len(fromIndex), err)
				return nil
			}
			for i, fc := range crds {
				whole, err := DecodeCRD(docAt(docs, fc.line))
				if err != nil {
					t.Errorf("%s: the outline reads, the whole CRD does not: %v", fc.origin, err)
					continue
				}
				want := Outline(whole.CustomResourceDefinition)
				if !apiequality.Semantic.DeepEqual(fc.outline, want) {
					t.Errorf("%s: outline read from the document\n%+v\nOutline of the CRD decoded whole\n%+v", fc.origin, fc.outline, want)
				}
				if !apiequality.Semantic.DeepEqual(fromIndex[i].outline, want) {
					t.Errorf("%s: outline read from the index\n%+v\nOutline of the CRD decoded whole\n%+v", fc.origin, fromIndex[i].outline, want)
				}
				compared++
			}
			return nil
		})
	}
	everyOutline, err := ReadFiles([]string{filepath.Join(dir, "everyfield.yaml")}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	o := everyOutline.crds[0].outline
	if o.Labels["app"] != "things" || o.CreationTimestamp.IsZero() || o.Spec.Conversion.Webhook.ClientConfig.Service.Name != "things-webhook" ||
		len(o.Status.StoredVersions) != 2 || len(o.Status.Conditions) != 1 || o.Spec.Versions[0].DeprecationWarning == nil || o.Spec.Versions[1].Subresources.Scale == nil {
		t.Errorf("the outline lacks what list shows: %+v", o)
	}
	if compared < 10 {
		t.Fatalf("compared %d CRDs; the test data has more", compared)
	}
	t.Logf("%d CRDs compared", compared)
}

func docAt(docs []manifest.Document, line int) *manifest.Document {
	for i := range docs {
		if docs[i].Line == line {
			return &docs[i]
		}
	}
	return nil
}
