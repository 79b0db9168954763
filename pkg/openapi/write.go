package openapi

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

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

// ParseGroupVersions reads GROUP/VERSION arguments.
func ParseGroupVersions(args []string) ([]schema.GroupVersion, error) {
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

// WriteV3 writes the v3 document of each group version of crds into dir,
// at the server's path (DocumentPath), encoded in format.
func WriteV3(dir string, crds []*apiextensionsv1.CustomResourceDefinition, gvs []schema.GroupVersion, format string) error {
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
		if err := writeFile(filepath.Join(dir, filepath.FromSlash(DocumentPath(gv, format))), data); err != nil {
			return err
		}
	}
	return nil
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
