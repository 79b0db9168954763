package corpus

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/openapi"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/santhosh-tekuri/jsonschema/v6"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestJSONSchemaExport compiles the exported JSON Schema of every served
// version of every corpus CRD, and checks it against the server's verdict
// on the examples, each defaulted first as the server defaults before it
// validates: every object the server created must pass. The agreement on
// the objects the server refused is logged: CEL rules and the like are
// beyond JSON Schema.
func TestJSONSchemaExport(t *testing.T) {
	needCorpus(t)
	schemas := map[schema.GroupVersionKind]*jsonschema.Schema{}
	structurals := map[schema.GroupVersionKind]*structuralschema.Structural{}
	for _, crds := range projects {
		for _, crd := range crds {
			for _, v := range crd.Spec.Versions {
				if !v.Served {
					continue
				}
				s, err := compileSchema(crd, v.Name)
				if err != nil {
					t.Errorf("%s %s: %v", crd.Name, v.Name, err)
					continue
				}
				gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
				schemas[gvk] = s
				if structurals[gvk], err = validate.Structural(crd, v.Name); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	check := func(docs []manifest.Document) (passed, failed int, failures []string) {
		for _, d := range docs {
			var tm struct{ APIVersion, Kind string }
			json.Unmarshal(d.JSON, &tm)
			gv, _ := schema.ParseGroupVersion(tm.APIVersion)
			s := schemas[gv.WithKind(tm.Kind)]
			if s == nil {
				continue
			}
			var obj map[string]any
			json.Unmarshal(d.JSON, &obj)
			if st := structurals[gv.WithKind(tm.Kind)]; st != nil {
				structuraldefaulting.Default(obj, st)
			}
			data, _ := json.Marshal(obj)
			inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(data))
			if err := s.Validate(inst); err != nil {
				failed++
				failures = append(failures, d.Pos()+": "+strings.ReplaceAll(err.Error(), "\n", " "))
			} else {
				passed++
			}
		}
		return
	}
	passed, _, failures := check(accepted)
	for _, f := range failures {
		t.Errorf("the server created it, the JSON Schema refuses it: %s", f)
	}
	t.Logf("objects the server created: %d of %d pass the JSON Schema", passed, len(accepted))
	passed, failed, _ := check(refused)
	t.Logf("objects the server refused: %d fail the JSON Schema too, %d pass it", failed, passed)
}

func compileSchema(crd *apiextensionsv1.CustomResourceDefinition, version string) (*jsonschema.Schema, error) {
	doc, err := openapi.JSONSchema(crd, version)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("crd.json", v); err != nil {
		return nil, err
	}
	return c.Compile("crd.json")
}
