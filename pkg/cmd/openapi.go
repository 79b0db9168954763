package cmd

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/openapi"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// OpenAPIOptions are the options of kubectl crd openapi.
type OpenAPIOptions struct {
	f         *factory.Factory // the sources and the cluster, read by Run
	Version   int              // 3 or 2
	Output    string           // json, yaml or jsonschema; empty: the layout's
	OutputDir string
	Layout    string // who reads --output-dir; empty: the output's
	Args      []string

	layout  openapi.Layout // Layout, or the output's
	catalog *catalog.Catalog
	out     io.Writer
	warn    func(string)
}

// NewCmdOpenAPI makes kubectl crd openapi.
func NewCmdOpenAPI(f *factory.Factory) *cobra.Command {
	o := &OpenAPIOptions{Version: 3}
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
		RunE:              runVerb(f, o),
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

// Complete takes the arguments, makes the catalog and fills in what the
// output and the layout imply of each other.
func (o *OpenAPIOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.Args, o.out, o.warn = args, f.Streams.Out, f.Warn
	if layout := openapi.Layout(o.Layout); o.Output == "" && o.Layout != "" && layout.JSONSchemas() {
		o.Output = "jsonschema"
	}
	if o.Output == "" {
		o.Output = "json"
	}
	if o.layout = openapi.Layout(o.Layout); o.Layout == "" && o.Output == "jsonschema" {
		o.layout = openapi.LayoutKubeconform
	}
	o.f = f
	return nil
}

// Validate checks the flags.
func (o *OpenAPIOptions) Validate() error {
	layout := openapi.Layout(o.Layout)
	switch {
	case o.Version != 2 && o.Version != 3:
		return fmt.Errorf("--openapi-version must be 3 or 2, not %d", o.Version)
	case o.Output != "json" && o.Output != "yaml" && o.Output != "jsonschema":
		return fmt.Errorf("--output must be json, yaml or jsonschema, not %q", o.Output)
	case o.Layout != "" && !slices.Contains(openapi.Layouts, layout):
		return fmt.Errorf("--layout must be one of %s, not %q", strings.Join(layoutNames(), ", "), o.Layout)
	case o.Layout != "" && o.OutputDir == "":
		return fmt.Errorf("--layout says where the files of --output-dir go: it needs --output-dir")
	case o.Layout != "" && layout.JSONSchemas() && o.Output != "jsonschema":
		return fmt.Errorf("--layout %s holds JSON Schemas: it goes with -o jsonschema, not -o %s", layout, o.Output)
	case o.Layout != "" && !layout.JSONSchemas() && o.Output != "json":
		return fmt.Errorf("--layout %s holds OpenAPI documents in JSON: it goes with -o json, not -o %s", layout, o.Output)
	case o.Output == "jsonschema" && o.OutputDir == "":
		return fmt.Errorf("-o jsonschema writes one file per kind and version: it needs --output-dir")
	case o.OutputDir != "" && o.Version != 3 && o.Output != "jsonschema":
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

// Run builds and prints (or writes) the documents.
func (o *OpenAPIOptions) Run(ctx context.Context) error {
	var err error
	if o.catalog, err = o.f.Catalog(false); err != nil {
		return err
	}
	if o.Output == "jsonschema" {
		crds, err := o.catalog.Named(ctx, o.Args)
		if err != nil {
			return err
		}
		ambiguous, err := openapi.WriteSchemas(o.OutputDir, o.layout, crds)
		for _, name := range ambiguous {
			o.warn(fmt.Sprintf("%s not written: that kind and version is served by more than one group; use the path with the group", name))
		}
		return err
	}
	if o.Version == 2 {
		crds, err := o.catalog.Named(ctx, o.Args)
		if err != nil {
			return err
		}
		doc, err := openapi.V2(crds)
		if err != nil {
			return err
		}
		return o.print(doc)
	}
	return o.runV3(ctx)
}

func (o *OpenAPIOptions) runV3(ctx context.Context) error {
	crds, gvs, err := openapi.SelectV3(ctx, o.catalog, o.Args)
	if err != nil {
		return err
	}
	if o.OutputDir != "" {
		return openapi.WriteV3(o.OutputDir, crds, gvs, o.Output)
	}
	return openapi.EachV3(crds, gvs, o.Output, func(_ schema.GroupVersion, data []byte) error {
		return openapi.Print(o.out, data, o.Output)
	})
}

func (o *OpenAPIOptions) print(doc any) error {
	data, err := openapi.Encode(doc, o.Output)
	if err != nil {
		return err
	}
	return openapi.Print(o.out, data, o.Output)
}
