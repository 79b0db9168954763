package openapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// Encode gives a document as the server writes it (json.Marshal, format
// "json"), or as YAML.
func Encode(doc any, format string) ([]byte, error) {
	data, err := json.Marshal(doc)
	if err != nil || format == "json" {
		return append(data, '\n'), err
	}
	return yaml.JSONToYAML(data)
}

// Print writes an encoded document to w; a YAML document is started with
// "---", so that several make one stream.
func Print(w io.Writer, data []byte, format string) error {
	if format == "yaml" {
		if _, err := io.WriteString(w, "---\n"); err != nil {
			return err
		}
	}
	_, err := w.Write(data)
	return err
}

// SelectV3 reads openapi's GROUP/VERSION arguments: the group versions
// whose documents to build (all the catalog serves when there are none),
// and the CRDs of their groups.
func SelectV3(ctx context.Context, cat *catalog.Catalog, args []string) ([]*apiextensionsv1.CustomResourceDefinition, []schema.GroupVersion, error) {
	gvs, err := parseGroupVersions(args)
	if err != nil {
		return nil, nil, err
	}
	if len(gvs) == 0 {
		crds, err := cat.Named(ctx, nil)
		return crds, GroupVersions(crds), err
	}
	// A group version's document holds only its group's CRDs.
	groups := map[string]bool{}
	for _, gv := range gvs {
		groups[gv.Group] = true
	}
	some, err := cat.ListWhere(ctx, func(crd *apiextensionsv1.CustomResourceDefinition) bool { return groups[crd.Spec.Group] })
	return catalog.Definitions(some), gvs, err
}

// parseGroupVersions reads GROUP/VERSION arguments.
func parseGroupVersions(args []string) ([]schema.GroupVersion, error) {
	var gvs []schema.GroupVersion
	for _, a := range args {
		gv, err := schema.ParseGroupVersion(a)
		if err != nil || gv.Group == "" || gv.Version == "" {
			return nil, fmt.Errorf("%q is not a GROUP/VERSION", a)
		}
		gvs = append(gvs, gv)
	}
	return gvs, nil
}

// EachV3 builds the v3 document of each group version of crds, encoded
// in format, and passes it to each in turn.
func EachV3(crds []*apiextensionsv1.CustomResourceDefinition, gvs []schema.GroupVersion, format string, each func(schema.GroupVersion, []byte) error) error {
	for _, gv := range gvs {
		doc, err := V3(crds, gv)
		if err != nil {
			return err
		}
		if doc == nil {
			return fmt.Errorf("no CustomResourceDefinition serves %s", gv)
		}
		data, err := Encode(doc, format)
		if err != nil {
			return err
		}
		if err := each(gv, data); err != nil {
			return err
		}
	}
	return nil
}

// WriteV3 writes the v3 document of each group version of crds into dir,
// at the server's path (DocumentPath), encoded in format.
func WriteV3(dir string, crds []*apiextensionsv1.CustomResourceDefinition, gvs []schema.GroupVersion, format string) error {
	return EachV3(crds, gvs, format, func(gv schema.GroupVersion, data []byte) error {
		return writeFile(filepath.Join(dir, filepath.FromSlash(DocumentPath(gv, format))), data)
	})
}

// WriteSchemas writes the JSON Schema of every served version of crds
// into dir, where the layout puts it. It returns the files not written:
// a kind and version served by more than one group, in a layout whose
// path has no group.
func WriteSchemas(dir string, l Layout, crds []*apiextensionsv1.CustomResourceDefinition) (ambiguous []string, err error) {
	files, ambiguous := l.SchemaFiles(crds)
	for _, file := range files {
		schema, err := JSONSchema(file.CRD, file.Version)
		if err != nil {
			return nil, err
		}
		data, err := json.MarshalIndent(schema, "", "  ")
		if err != nil {
			return nil, err
		}
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(file.Path)), append(data, '\n')); err != nil {
			return nil, err
		}
	}
	return ambiguous, nil
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}
