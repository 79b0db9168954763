package schemaproof_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/schemaproof"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// version is one CRD version with the server's schema validator, the
// proof in front of it, and the objects of the data read for it.
type version struct {
	name       string // CRD name and version
	server     apiservervalidation.SchemaValidator
	proof      *schemaproof.Validator
	structural *structuralschema.Structural
	preserve   bool
	objects    []object
}

type object struct {
	where string
	value map[string]any
}

// dataDirs are where the data is read from: the project's test data and
// examples, and the corpus of real-world CRDs and examples when present.
func dataDirs() []string {
	dirs := []string{"../../test/testdata", "../../examples"}
	corpus := os.Getenv("KUBECTL_CRD_CORPUS")
	if corpus == "" {
		corpus = "../../../shared/corpus"
	}
	if _, err := os.Stat(corpus); err == nil {
		dirs = append(dirs, corpus)
	}
	return dirs
}

// readVersions reads every CRD and object below dirs and puts each object
// with the version of the first CRD read for its kind. A CRD version the
// server would not build a validator for is left out.
func readVersions(t testing.TB, dirs ...string) []*version {
	t.Helper()
	var docs []manifest.Document
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch strings.ToLower(filepath.Ext(path)) {
			case ".yaml", ".yml", ".json":
			default:
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, doc := range manifest.ReadLenient(path, data) {
				if doc.Err == nil && len(doc.JSON) > 0 {
					docs = append(docs, doc)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	byKind := map[schema.GroupVersionKind]*version{}
	var versions []*version
	for i := range docs {
		if !catalog.IsCRD(docs[i].TypeMeta()) {
			continue
		}
		crd, err := catalog.DecodeCRD(&docs[i])
		if err != nil {
			continue
		}
		for _, v := range crd.Spec.Versions {
			gvk := schema.GroupVersionKind{Group: crd.Spec.Group, Version: v.Name, Kind: crd.Spec.Names.Kind}
			if byKind[gvk] != nil {
				continue
			}
			built, err := build(crd.CustomResourceDefinition, v.Name)
			if err != nil || built == nil {
				continue
			}
			byKind[gvk] = built
			versions = append(versions, built)
		}
	}
	for _, d := range docs {
		u := &unstructured.Unstructured{}
		if u.UnmarshalJSON(d.JSON) != nil {
			continue
		}
		if v := byKind[u.GroupVersionKind()]; v != nil {
			v.objects = append(v.objects, object{where: d.Pos(), value: u.Object})
		}
	}
	sort.Slice(versions, func(i, j int) bool { return versions[i].name < versions[j].name })
	return versions
}

// build is what the server builds to validate a CRD version's objects.
func build(crd *apiextensionsv1.CustomResourceDefinition, name string) (*version, error) {
	val, err := apihelpers.GetSchemaForVersion(crd, name)
	if err != nil || val == nil {
		return nil, err
	}
	internal := &apiextensions.CustomResourceValidation{}
	if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internal, nil); err != nil {
		return nil, err
	}
	server, openapi, err := apiservervalidation.NewSchemaValidator(internal.OpenAPIV3Schema)
	if err != nil {
		return nil, err
	}
	s, err := validate.Structural(crd, name)
	if err != nil {
		return nil, err
	}
	return &version{name: crd.Name + "/" + name, server: server, proof: schemaproof.New(server, openapi),
		structural: s, preserve: crd.Spec.PreserveUnknownFields}, nil
}
