package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"github.com/kubectl-crd/kubectl-crd/pkg/openapi"
	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	openapiclient "k8s.io/client-go/openapi"
	kubectlexplain "k8s.io/kubectl/pkg/cmd/explain"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	explainfields "k8s.io/kubectl/pkg/explain"
	kubectlopenapi "k8s.io/kubectl/pkg/util/openapi"
)

// explainFormats are explain's output formats: kubectl's two, then ours.
var explainFormats = []string{"plaintext", "plaintext-openapiv2", "detailed", "markdown"}

// ExplainOptions are the options of kubectl crd explain: kubectl's own
// explain, reading the OpenAPI documents of the CRD built on the client.
type ExplainOptions struct {
	flags *kubectlexplain.ExplainFlags
	args  []string
	out   io.Writer

	// format is the output format asked for; kubectl's explain renders
	// plaintext for detailed, and CONSTRAINTS follow.
	format  string
	target  explained
	kubectl *kubectlexplain.ExplainOptions
}

// explained is what explain's argument names: a CRD, its resource and
// version, and the field path in its schema.
type explained struct {
	crd    *apiextensionsv1.CustomResourceDefinition
	gvr    schema.GroupVersionResource
	fields []string
}

// NewCmdExplain makes kubectl crd explain.
func NewCmdExplain(f *Factory) *cobra.Command {
	o := &ExplainOptions{flags: kubectlexplain.NewExplainFlags(f.Streams)}
	c := &cobra.Command{
		Use:                   "explain TYPE[.FIELD...] [--recursive] [--max-depth N] [--api-version GROUP/VERSION]",
		DisableFlagsInUseLine: true,
		Short:                 "Document a CRD's schema, field by field",
		Long: `Document a custom resource type, or one of its fields, as kubectl explain
does, from the CRD's schema: the OpenAPI document is built on the client
(offline with --crds) with the API server's own builder.`,
		Example: `  kubectl crd explain crontabs
  kubectl crd explain ct.spec --recursive
  kubectl crd explain crontabs.spec.cronSpec --crds examples/crds

  # Also the constraints kubectl explain hides: defaults, bounds, CEL rules...
  kubectl crd explain crontabs.spec -o detailed

  # A reference page for a docs site
  kubectl crd explain crontabs -o markdown > crontab.md`,
		RunE:              run(f, o),
		ValidArgsFunction: completeTypes(f),
	}
	o.flags.AddFlags(c)
	c.Flags().Lookup("output").Usage = "Format in which to render the schema: plaintext or plaintext-openapiv2 (kubectl's), detailed (plaintext and every field's constraints), or markdown (a reference page)."
	return c
}

// Complete finds the CRD of the argument (as kubectl explain finds the
// resource, then through the catalog) and prepares kubectl's explain over
// the documents built from it.
func (o *ExplainOptions) Complete(f *Factory, c *cobra.Command, args []string) error {
	ctx := contextOf(c)
	o.args, o.format, o.out = args, o.flags.OutputFormat, f.Streams.Out
	if !slices.Contains(explainFormats, o.format) {
		return nil // Validate says so
	}
	cat, err := f.Catalog(false)
	if err != nil {
		return err
	}
	mapper, err := cat.RESTMapper()
	if err != nil {
		return err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	if len(args) == 1 {
		if o.target, err = o.explained(ctx, cat, mapper, args[0]); err != nil {
			return err
		}
		crds = append(crds, o.target.crd)
	}
	if o.format == "markdown" {
		return nil
	}
	flags := *o.flags
	if o.format == "detailed" {
		flags.OutputFormat = "plaintext"
	}
	kf := &explainFactory{Factory: cmdutil.NewFactory(f.ConfigFlags), mapper: mapper, crds: crds, client: openapi.NewClient(crds)}
	o.kubectl, err = flags.ToOptions(kf, "kubectl crd", args)
	return err
}

// explained finds the CRD of explain's argument: the resource part is
// found as kubectl explain finds it, and the catalog fetches its CRD (and
// warns about a deprecated version).
func (o *ExplainOptions) explained(ctx context.Context, cat *catalog.Catalog, mapper meta.RESTMapper, arg string) (explained, error) {
	split := explainfields.SplitAndParseResourceRequestWithMatchingPrefix
	if o.flags.APIVersion != "" {
		split = explainfields.SplitAndParseResourceRequest
	}
	gvr, fields, err := split(arg, mapper)
	if err != nil {
		return explained{}, err
	}
	if o.flags.APIVersion != "" {
		gv, err := schema.ParseGroupVersion(o.flags.APIVersion)
		if err != nil {
			return explained{}, err
		}
		gvr.Group, gvr.Version = gv.Group, gv.Version
	}
	r, err := cat.One(ctx, gvr.Resource+"."+gvr.Version+"."+gvr.Group)
	if err != nil {
		return explained{}, err
	}
	return explained{crd: r.CRD.CustomResourceDefinition, gvr: gvr, fields: fields}, nil
}

// Validate checks the arguments as kubectl's explain does.
func (o *ExplainOptions) Validate() error {
	if !slices.Contains(explainFormats, o.format) {
		return fmt.Errorf("--output %q is not supported: use plaintext, plaintext-openapiv2, detailed or markdown", o.format)
	}
	if o.format == "markdown" {
		if len(o.args) != 1 {
			return fmt.Errorf("-o markdown documents one TYPE[.FIELD...]")
		}
		return nil
	}
	return o.kubectl.Validate()
}

// Run prints the documentation.
func (o *ExplainOptions) Run(context.Context) error {
	out := o.out
	if o.format == "markdown" {
		return explain.WriteMarkdown(out, o.target.crd, o.target.gvr.Version, o.target.fields)
	}
	if err := o.kubectl.Run(); err != nil || o.format != "detailed" {
		return err
	}
	root, err := explain.Schema(o.target.crd, o.target.gvr.Version)
	if err != nil {
		return err
	}
	return explain.WriteConstraints(out, root, o.target.fields, o.flags.Recursive)
}

// explainFactory is kubectl's factory with the catalog's names and the
// OpenAPI documents built on the client.
type explainFactory struct {
	cmdutil.Factory
	mapper meta.RESTMapper
	crds   []*apiextensionsv1.CustomResourceDefinition
	client openapiclient.Client
}

func (f *explainFactory) ToRESTMapper() (meta.RESTMapper, error) { return f.mapper, nil }

func (f *explainFactory) OpenAPIV3Client() (openapiclient.Client, error) { return f.client, nil }

// OpenAPISchema serves -o plaintext-openapiv2 from the v2 document.
func (f *explainFactory) OpenAPISchema() (kubectlopenapi.Resources, error) {
	doc, err := openapi.V2(f.crds)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	parsed, err := openapiv2.ParseDocument(data)
	if err != nil {
		return nil, err
	}
	return kubectlopenapi.NewOpenAPIData(parsed)
}
