package validate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// widgetCRD is a CRD of its own, given in the input after its object.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.pipeline.example.com}
spec:
  group: pipeline.example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, maximum: 3}
`

// TestPipelineInputCRDs: an object is checked against the CRD beside it
// wherever it stands; the catalog given is left as it was; each CRD a kind
// is found in is told to Found.
func TestPipelineInputCRDs(t *testing.T) {
	cat := cronTabs(t).(*catalog.Catalog)
	text := "apiVersion: pipeline.example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {size: 4}\n---\n" + widgetCRD
	p, err := NewPipeline(cat, manifest.InputOf("in.yaml", []byte(text)))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.CRDs()) != 1 || p.CRDs()[0].Name != "widgets.pipeline.example.com" {
		t.Fatalf("input CRDs %v", p.CRDs())
	}
	var found []string
	r, err := p.Check(context.Background(), Options{Found: func(c *catalog.CRD) { found = append(found, c.Name) }})
	if err != nil {
		t.Fatal(err)
	}
	if got := where(r); len(got) != 1 || got[0] != "4:8 spec.size FieldValueInvalid" {
		t.Errorf("the object beside its CRD: %v", got)
	}
	if len(found) != 1 || found[0] != "widgets.pipeline.example.com" {
		t.Errorf("found %v", found)
	}
	if crd, err := cat.ForKind(context.Background(), schema.GroupKind{Group: "pipeline.example.com", Kind: "Widget"}); crd != nil || err != nil {
		t.Errorf("the catalog given now has the input's CRD: %v, %v", crd, err)
	}
}

// TestPipelineTwoCRDsForOneKind: two different CRDs of the input for one
// kind are an error before anything is checked.
func TestPipelineTwoCRDsForOneKind(t *testing.T) {
	other := strings.Replace(widgetCRD, "maximum: 3", "maximum: 5", 1)
	_, err := NewPipeline(cronTabs(t).(*catalog.Catalog), manifest.InputOf("in.yaml", []byte(widgetCRD+"---\n"+other)))
	if err == nil || !strings.Contains(err.Error(), "two different CustomResourceDefinitions for kind Widget.pipeline.example.com") {
		t.Errorf("got %v", err)
	}
}

// TestPipelineDecodesCRDsOnce: with the input in memory, the check takes
// the documents the first walk decoded (a document changed between the
// two walks shows in the check), and an input of files is read again.
func TestPipelineDecodesCRDsOnce(t *testing.T) {
	cat := cronTabs(t).(*catalog.Catalog)
	// A CRD document whose name does not match its spec: the check says so.
	broken := strings.Replace(widgetCRD, "name: widgets.pipeline.example.com", "name: gadgets.pipeline.example.com", 1)
	check := func(input Input, swap bool) []string {
		p, err := NewPipeline(cat, input)
		if err != nil {
			t.Fatal(err)
		}
		if swap {
			docs, err := manifest.InputOf("in.yaml", []byte(broken)).Read()
			if err != nil {
				t.Fatal(err)
			}
			for place := range p.decoded {
				p.decoded[place] = docs
			}
		}
		r, err := p.Check(context.Background(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return where(r)
	}
	if got := check(manifest.InputOf("in.yaml", []byte(widgetCRD)), false); len(got) != 0 {
		t.Fatalf("the CRD: %v", got)
	}
	if got := check(manifest.InputOf("in.yaml", []byte(widgetCRD)), true); len(got) == 0 {
		t.Errorf("in memory, the check decoded the CRD again: the document the first walk kept was not used")
	}
	file := filepath.Join(t.TempDir(), "in.yaml")
	if err := os.WriteFile(file, []byte(widgetCRD), 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := manifest.OpenPaths([]string{file}, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPipeline(cat, in)
	if err != nil || p.decoded != nil {
		t.Errorf("from a file the first walk's documents are kept: %v, %v", p.decoded, err)
	}
}
