package cmd

import (
	"context"
	"encoding/json"
	"fmt"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	explainpkg "github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"github.com/kubectl-crd/kubectl-crd/pkg/openapi"
	"github.com/spf13/cobra"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	openapiclient "k8s.io/client-go/openapi"
	kubectlexplain "k8s.io/kubectl/pkg/cmd/explain"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/explain"
	kubectlopenapi "k8s.io/kubectl/pkg/util/openapi"
)

// NewCmdExplain makes kubectl crd explain: kubectl's own explain command,
// reading the OpenAPI v3 document of the CRD built on the client instead of
// the server's /openapi/v3.
func NewCmdExplain(f *Factory) *cobra.Command {
	flags := kubectlexplain.NewExplainFlags(f.Streams)
	c := &cobra.Command{
		Use:                   "explain TYPE[.FIELD...] [--recursive] [--max-depth N] [--api-version GROUP/VERSION]",
		DisableFlagsInUseLine: true,
		Short:                 "Document a CRD's schema, field by field",
		Long: `Document a custom resource type, or one of its fields, as kubectl explain
does, from the CRD's schema: the OpenAPI v3 document is built on the client
(offline with --crds) with the API server's own builder.`,
		Example: `  kubectl crd explain crontabs
  kubectl crd explain ct.spec --recursive
  kubectl crd explain crontabs.spec.cronSpec --crds examples/crds

  # Also the constraints kubectl explain hides: defaults, bounds, CEL rules...
  kubectl crd explain crontabs.spec -o detailed

  # A reference page for a docs site
  kubectl crd explain crontabs -o markdown > crontab.md`,
		RunE: func(c *cobra.Command, args []string) error {
			return runExplain(c.Context(), f, flags, args)
		},
		ValidArgsFunction: completeTypes(f),
	}
	flags.AddFlags(c)
	c.Flags().Lookup("output").Usage = "Format in which to render the schema: plaintext or plaintext-openapiv2 (kubectl's), detailed (plaintext and every field's constraints), or markdown (a reference page)."
	return c
}

func runExplain(ctx context.Context, f *Factory, flags *kubectlexplain.ExplainFlags, args []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	format := flags.OutputFormat
	switch format {
	case "plaintext", "plaintext-openapiv2", "detailed", "markdown":
	default:
		return fmt.Errorf("--output %q is not supported: use plaintext, plaintext-openapiv2, detailed or markdown", format)
	}
	getter, err := f.clientGetter(nil)
	if err != nil {
		return err
	}
	kf := cmdutil.NewFactory(getter)
	var target explained
	if len(args) == 1 {
		if target, err = f.explainedCRD(ctx, kf, flags.APIVersion, args[0]); err != nil {
			return err
		}
	}
	if format == "markdown" {
		return explainpkg.WriteMarkdown(f.Streams.Out, target.crd, target.gvr.Version, target.fields)
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	if target.crd != nil {
		crds = append(crds, target.crd)
	}
	if format == "detailed" {
		flags.OutputFormat = "plaintext"
	}
	o, err := flags.ToOptions(&explainFactory{Factory: kf, crds: crds, client: openapi.NewClient(crds)}, "kubectl crd", args)
	if err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	if err := o.Run(); err != nil || format != "detailed" {
		return err
	}
	root, err := explainpkg.Schema(target.crd, target.gvr.Version)
	if err != nil {
		return err
	}
	return explainpkg.WriteConstraints(f.Streams.Out, root, target.fields, flags.Recursive)
}

// explained is what explain's argument names: a CRD, its resource and
// version, and the field path in its schema.
type explained struct {
	crd    *apiextensionsv1.CustomResourceDefinition
	gvr    schema.GroupVersionResource
	fields []string
}

// explainedCRD finds the CRD of explain's argument: the resource part is
// found as kubectl explain finds it, and the catalog fetches its CRD (and
// warns about a deprecated version).
func (f *Factory) explainedCRD(ctx context.Context, kf cmdutil.Factory, apiVersion, arg string) (explained, error) {
	mapper, err := kf.ToRESTMapper()
	if err != nil {
		return explained{}, err
	}
	split := explain.SplitAndParseResourceRequestWithMatchingPrefix
	if apiVersion != "" {
		split = explain.SplitAndParseResourceRequest
	}
	gvr, fields, err := split(arg, mapper)
	if err != nil {
		return explained{}, err
	}
	if apiVersion != "" {
		gv, err := schema.ParseGroupVersion(apiVersion)
		if err != nil {
			return explained{}, err
		}
		gvr.Group, gvr.Version = gv.Group, gv.Version
	}
	cat, err := f.Catalog()
	if err != nil {
		return explained{}, err
	}
	res, err := cat.Resolve(ctx, gvr.Resource+"."+gvr.Version+"."+gvr.Group)
	if err != nil {
		return explained{}, err
	}
	if len(res) != 1 || res[0].CRD == nil {
		return explained{}, fmt.Errorf("cannot read the CustomResourceDefinition of %q", arg)
	}
	return explained{crd: res[0].CRD.CustomResourceDefinition, gvr: gvr, fields: fields}, nil
}

// explainFactory is kubectl's factory with the OpenAPI documents replaced
// by those built on the client.
type explainFactory struct {
	cmdutil.Factory
	crds   []*apiextensionsv1.CustomResourceDefinition
	client openapiclient.Client
}

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
