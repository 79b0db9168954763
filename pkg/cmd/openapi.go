package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/openapi"
	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// OpenAPIOptions are the options of kubectl crd openapi.
type OpenAPIOptions struct {
	f *Factory

	Version   int    // 3 or 2
	Output    string // json, yaml or jsonschema; empty: the layout's
	OutputDir string
	Layout    string // who reads --output-dir; empty: the output's
	Args      []string

	catalog *catalog.Catalog
}

// NewCmdOpenAPI makes kubectl crd openapi.
func NewCmdOpenAPI(f *Factory) *cobra.Command {
	o := &OpenAPIOptions{f: f, Version: 3}
	c := &cobra.Command{
		Use:   "openapi [GROUP/VERSION... | TYPE...]",
		Short: "Print the OpenAPI documents the API server publishes for CRDs",
		Long: `Print, built on the client, the OpenAPI documents the API server publishes
for CustomResourceDefinitions: v3 (the default) for each GROUP/VERSION
given, or all; v2 (--openapi-version=2) for the TYPEs given, or all; or
JSON Schemas for editors and validators (-o jsonschema --output-dir).
JSON output is the server's own bytes.`,
		Example: `  # The v3 document of one group version, offline
  kubectl crd openapi stable.example.com/v1 --crds examples/crds

  # Every group version as the server's paths (for kubectl-validate)
  kubectl crd openapi --output-dir openapi/

  # JSON Schemas for kubeconform, and for VS Code's YAML extension
  kubectl crd openapi -o jsonschema --output-dir schemas/
  kubectl crd openapi --layout vscode --output-dir crd-store/

  # The Swagger 2.0 document for two types
  kubectl crd openapi --openapi-version=2 crontabs widgets`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Validate(); err != nil {
				return err
			}
			if err := o.Complete(args); err != nil {
				return err
			}
			return o.Run(contextOf(c))
		},
		ValidArgsFunction: completeGroupVersions(f),
	}
	c.Flags().IntVar(&o.Version, "openapi-version", o.Version, "The OpenAPI version: 3 or 2.")
	c.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Output format: json (the default), yaml, or jsonschema (one JSON Schema per kind and version, written to --output-dir).")
	c.Flags().StringVar(&o.OutputDir, "output-dir", o.OutputDir, "Write each v3 document to DIR/apis/GROUP/VERSION.json (or .yaml) instead of stdout.")
	c.Flags().StringVar(&o.Layout, "layout", o.Layout, "With --output-dir, the files for one reader: kubeconform (JSON Schemas at KIND_VERSION.json and GROUP/KIND_VERSION.json; the default of -o jsonschema), vscode (JSON Schemas at GROUP/KIND_VERSION.json, yaml.kubernetesCRDStore's layout), kubectl-validate (v3 documents at apis/GROUP/VERSION.json, for --local-schemas; the default of -o json).")
	_ = c.RegisterFlagCompletionFunc("layout", cobra.FixedCompletions(layoutNames(), cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions([]string{"json", "yaml", "jsonschema"}, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// Validate checks the flags and fills in what the output and the layout
// imply of each other.
func (o *OpenAPIOptions) Validate() error {
	if o.Version != 2 && o.Version != 3 {
		return fmt.Errorf("--openapi-version must be 3 or 2, not %d", o.Version)
	}
	if o.Output != "" && o.Output != "json" && o.Output != "yaml" && o.Output != "jsonschema" {
		return fmt.Errorf("--output must be json, yaml or jsonschema, not %q", o.Output)
	}
	if o.Layout != "" {
		layout := openapi.Layout(o.Layout)
		switch {
		case !slices.Contains(openapi.Layouts, layout):
			return fmt.Errorf("--layout must be one of %s, not %q", strings.Join(layoutNames(), ", "), o.Layout)
		case o.OutputDir == "":
			return fmt.Errorf("--layout says where the files of --output-dir go: it needs --output-dir")
		case layout.JSONSchemas() && o.Output != "" && o.Output != "jsonschema":
			return fmt.Errorf("--layout %s holds JSON Schemas: it goes with -o jsonschema, not -o %s", layout, o.Output)
		case !layout.JSONSchemas() && o.Output != "" && o.Output != "json":
			return fmt.Errorf("--layout %s holds OpenAPI documents in JSON: it goes with -o json, not -o %s", layout, o.Output)
		}
		if o.Output == "" && layout.JSONSchemas() {
			o.Output = "jsonschema"
		}
	}
	if o.Output == "" {
		o.Output = "json"
	}
	if o.Layout == "" && o.Output == "jsonschema" {
		o.Layout = string(openapi.LayoutKubeconform)
	}
	if o.Output == "jsonschema" && o.OutputDir == "" {
		return fmt.Errorf("-o jsonschema writes one file per kind and version: it needs --output-dir")
	}
	if o.OutputDir != "" && o.Version != 3 && o.Output != "jsonschema" {
		return fmt.Errorf("--output-dir writes v3 documents; it does not go with --openapi-version=2")
	}
	return nil
}

func layoutNames() []string {
	names := make([]string, len(openapi.Layouts))
	for i, l := range openapi.Layouts {
		names[i] = string(l)
	}
	return names
}

// Complete takes the arguments and makes the catalog.
func (o *OpenAPIOptions) Complete(args []string) error {
	o.Args = args
	var err error
	o.catalog, err = o.f.Catalog()
	return err
}

// Run builds and prints the documents.
func (o *OpenAPIOptions) Run(ctx context.Context) error {
	switch {
	case o.Output == "jsonschema":
		return o.runJSONSchema(ctx)
	case o.Version == 2:
		return o.runV2(ctx)
	}
	return o.runV3(ctx)
}

// runJSONSchema writes the JSON Schema of every served version of the
// selected CRDs where the layout puts it.
func (o *OpenAPIOptions) runJSONSchema(ctx context.Context) error {
	crds, err := o.selectedCRDs(ctx)
	if err != nil {
		return err
	}
	files, ambiguous := openapi.Layout(o.Layout).SchemaFiles(crds)
	for _, name := range ambiguous {
		o.f.Warn(fmt.Sprintf("%s not written: that kind and version is served by more than one group; use the path with the group", name))
	}
	for _, file := range files {
		schema, err := openapi.JSONSchema(file.CRD, file.Version)
		if err != nil {
			return err
		}
		data, err := json.MarshalIndent(schema, "", "  ")
		if err != nil {
			return err
		}
		path := filepath.Join(o.OutputDir, filepath.FromSlash(file.Path))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (o *OpenAPIOptions) allCRDs(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	list, err := o.catalog.List(ctx)
	if err != nil {
		return nil, err
	}
	return catalog.Definitions(list), nil
}

func (o *OpenAPIOptions) runV3(ctx context.Context) error {
	var gvs []schema.GroupVersion
	groups := map[string]bool{}
	for _, a := range o.Args {
		gv, err := schema.ParseGroupVersion(a)
		if err != nil || gv.Group == "" || gv.Version == "" {
			return fmt.Errorf("%q is not a GROUP/VERSION", a)
		}
		gvs = append(gvs, gv)
		groups[gv.Group] = true
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	if len(gvs) == 0 {
		all, err := o.allCRDs(ctx)
		if err != nil {
			return err
		}
		crds, gvs = all, openapi.GroupVersions(all)
	} else {
		// A group version's document holds only its group's CRDs.
		some, err := o.catalog.ListWhere(ctx, func(crd *apiextensionsv1.CustomResourceDefinition) bool { return groups[crd.Spec.Group] })
		if err != nil {
			return err
		}
		crds = catalog.Definitions(some)
	}
	for _, gv := range gvs {
		doc, err := openapi.V3(crds, gv)
		if err != nil {
			return err
		}
		if doc == nil {
			return fmt.Errorf("no CustomResourceDefinition serves %s", gv)
		}
		data, err := o.encode(doc)
		if err != nil {
			return err
		}
		if o.OutputDir == "" {
			if err := o.write(o.f.Streams.Out, data); err != nil {
				return err
			}
			continue
		}
		path := filepath.Join(o.OutputDir, filepath.FromSlash(openapi.DocumentPath(gv, o.Output)))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func (o *OpenAPIOptions) runV2(ctx context.Context) error {
	crds, err := o.selectedCRDs(ctx)
	if err != nil {
		return err
	}
	doc, err := openapi.V2(crds)
	if err != nil {
		return err
	}
	data, err := o.encode(doc)
	if err != nil {
		return err
	}
	return o.write(o.f.Streams.Out, data)
}

// selectedCRDs are the CRDs of the TYPE arguments, or all CRDs.
func (o *OpenAPIOptions) selectedCRDs(ctx context.Context) ([]*apiextensionsv1.CustomResourceDefinition, error) {
	return namedCRDs(ctx, o.catalog, o.Args)
}

// encode gives JSON as the server writes it (json.Marshal), or YAML.
func (o *OpenAPIOptions) encode(doc any) ([]byte, error) {
	data, err := json.Marshal(doc)
	if err != nil || o.Output == "json" {
		return append(data, '\n'), err
	}
	return yaml.JSONToYAML(data)
}

// write prints one document; YAML documents are separated by "---".
func (o *OpenAPIOptions) write(w io.Writer, data []byte) error {
	if o.Output == "yaml" {
		if _, err := io.WriteString(w, "---\n"); err != nil {
			return err
		}
	}
	_, err := w.Write(data)
	return err
}
