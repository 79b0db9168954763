package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/convert"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/spf13/cobra"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

// ConvertOptions are the options of kubectl crd convert.
type ConvertOptions struct {
	f *Factory

	Filenames     []string
	Recursive     bool
	Output        string
	OutputVersion string
	RoundTrip     bool
	Check         bool
	WebhookURL    string
	WebhookCA     string
	ChunkSize     int64

	types   []string // --check: TYPE [NAME...]
	webhook convert.Webhook
	catalog *catalog.Catalog
}

// NewCmdConvert makes kubectl crd convert.
func NewCmdConvert(f *Factory) *cobra.Command {
	o := &ConvertOptions{f: f, ChunkSize: 500}
	c := &cobra.Command{
		Use:   "convert -f PATH... [--output-version GROUP/VERSION | --round-trip] | convert TYPE [NAME...] --check",
		Short: "Convert custom resources between their CRD's versions as the API server does",
		Long: `Convert the custom resources in local files to another version of their
CRD, as the API server would return them, with its own converter (None,
or the CRD's webhook, checked as the server checks it; a service's webhook
is reached with --webhook-url). --round-trip reports what going to each
other version and back loses; TYPE --check names the stored objects the
cluster cannot read at every served version.

Exit status: 0 when every object converts (and comes back unchanged), 1
when a conversion fails or a round trip changes an object, 2 when the
input cannot be read, a CRD is missing or a version is unknown.`,
		Example: `  # The example CronTabs at v1beta1, as the server would return them
  kubectl crd convert -f examples/objects/valid --crds examples/crds --output-version v1beta1

  # What a round trip through the other versions loses
  kubectl crd convert -f examples/objects/valid --crds examples/crds --round-trip

  # Before moving the storage version: can every stored object be read?
  kubectl crd convert widgets --check`,
		RunE: func(c *cobra.Command, args []string) error {
			if err := o.Validate(args); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			if err := o.Complete(); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			return o.Run(contextOf(c))
		},
		ValidArgsFunction: completeTypeAndName(f),
	}
	c.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "Files or directories of objects to convert; - for stdin.")
	c.Flags().BoolVarP(&o.Recursive, "recursive", "R", false, "Read directories given with -f recursively.")
	c.Flags().StringVarP(&o.Output, "output", "o", "", "Output format: yaml (default) or json; with --round-trip or --check: text (default) or json.")
	c.Flags().StringVar(&o.OutputVersion, "output-version", "", "The version to convert to: GROUP/VERSION, or VERSION for every object's group (default: each CRD's preferred version).")
	c.Flags().BoolVar(&o.RoundTrip, "round-trip", false, "Convert every object to each other served version and back, and report what changes.")
	c.Flags().BoolVar(&o.Check, "check", false, "Read the stored objects of TYPE (or the NAMEs) at every served version through the cluster, and report those it cannot return.")
	c.Flags().StringVar(&o.WebhookURL, "webhook-url", "", "Where the conversion webhook answers (https://HOST:PORT[/PATH]), for a webhook run locally or port-forwarded; TLS is still verified against the CRD's clientConfig.")
	c.Flags().StringVar(&o.WebhookCA, "webhook-ca", "", "A PEM file of CA certificates to trust for the webhook, besides the CRD's caBundle.")
	c.Flags().Int64Var(&o.ChunkSize, "chunk-size", o.ChunkSize, "With --check: objects per list page.")
	_ = c.RegisterFlagCompletionFunc("output", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		if o.RoundTrip || o.Check {
			return []string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp
		}
		return []string{"yaml", "json"}, cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

// Validate checks the flags.
func (o *ConvertOptions) Validate(args []string) error {
	report := o.RoundTrip || o.Check
	switch {
	case o.RoundTrip && o.Check:
		return errors.New("--round-trip and --check cannot be used together")
	case o.Check && len(args) == 0:
		return errors.New("--check reads the stored objects of a type: kubectl crd convert TYPE [NAME...] --check")
	case o.Check && len(o.Filenames) > 0:
		return errors.New("--check reads stored objects, not files: drop -f (convert -f --round-trip checks files)")
	case o.Check && o.f.Offline():
		return errors.New("--check reads the objects stored in a cluster: it does not go with --crds")
	case !o.Check && len(args) > 0:
		return fmt.Errorf("unexpected arguments %q: name the files to convert with -f", args)
	case !o.Check && len(o.Filenames) == 0:
		return errors.New("no input: name files or directories with -f (- for stdin)")
	case report && o.Output != "" && o.Output != "text" && o.Output != "json":
		return fmt.Errorf("--output must be text or json, not %q", o.Output)
	case !report && o.Output != "" && o.Output != "yaml" && o.Output != "json":
		return fmt.Errorf("--output must be yaml or json, not %q", o.Output)
	case report && o.OutputVersion != "":
		return errors.New("--output-version converts objects: it does not go with --round-trip or --check")
	case o.ChunkSize <= 0:
		return errors.New("--chunk-size must be positive")
	}
	o.types = args
	timeout, err := clientcmd.ParseTimeout(*o.f.ConfigFlags.Timeout)
	if err != nil {
		return fmt.Errorf("--request-timeout: %w", err)
	}
	o.webhook = convert.Webhook{URL: o.WebhookURL, Timeout: timeout}
	if o.WebhookCA != "" {
		if o.webhook.CA, err = os.ReadFile(o.WebhookCA); err != nil {
			return fmt.Errorf("--webhook-ca: %w", err)
		}
	}
	return o.webhook.Validate()
}

// Complete makes the catalog.
func (o *ConvertOptions) Complete() error {
	// Converted objects are checked as the cluster's version checks them.
	if err := o.f.UseKubernetesVersion(); err != nil {
		return err
	}
	var err error
	o.catalog, err = o.f.Catalog()
	return err
}

// Run converts, round-trips or checks.
func (o *ConvertOptions) Run(ctx context.Context) error {
	if o.Check {
		return o.check(ctx)
	}
	docs, err := manifest.ReadPaths(o.Filenames, o.Recursive, o.f.Streams.In)
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	var crds []*catalog.CRD
	var objects []*manifest.Document
	for i := range docs {
		d := &docs[i]
		if !catalog.IsCRD(d.TypeMeta()) {
			objects = append(objects, d)
			continue
		}
		crd, err := catalog.DecodeCRD(d)
		if err != nil {
			return &ExitError{Code: 2, Err: err}
		}
		crds = append(crds, crd)
	}
	if err := o.catalog.AddInput(crds...); err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	if len(objects) == 0 {
		return &ExitError{Code: 2, Err: errors.New("no objects to convert in the input")}
	}
	r := &conversionRun{o: o, converters: map[string]*convert.Converter{}, unreachable: map[string]bool{}}
	if o.RoundTrip {
		return r.roundTrips(ctx, objects)
	}
	return r.convert(ctx, objects)
}

// conversionRun converts the objects of one run, with one converter per
// CRD, and keeps the exit code: 2 for objects that cannot be converted
// at all (no CRD, an unknown version), 1 for failed conversions.
type conversionRun struct {
	o          *ConvertOptions
	converters map[string]*convert.Converter
	code       int
	// unreachable: the CRDs whose webhook was said to be out of reach.
	unreachable map[string]bool
}

// fail reports a problem with one object on stderr, with its place. That
// a webhook cannot be reached from here is said in full once per CRD.
func (r *conversionRun) fail(code int, d *manifest.Document, obj *unstructured.Unstructured, err error) {
	what := ""
	if obj != nil {
		what = obj.GetKind() + " " + objectName(obj) + ": "
	}
	var unreachable *convert.UnreachableServiceError
	if errors.As(err, &unreachable) {
		if r.unreachable[unreachable.CRD] {
			err = fmt.Errorf("the conversion webhook of %s cannot be reached from here (see above)", unreachable.CRD)
		}
		r.unreachable[unreachable.CRD] = true
	}
	fmt.Fprintf(r.o.f.Streams.ErrOut, "%s: %s%v\n", d.Pos(), what, err)
	r.code = max(r.code, code)
}

// object decodes a document's object and finds its converter; a problem
// is reported and no converter returned.
func (r *conversionRun) object(ctx context.Context, d *manifest.Document) (*unstructured.Unstructured, *convert.Converter) {
	obj, err := d.TakeObject()
	if err != nil {
		r.fail(2, d, nil, err)
		return nil, nil
	}
	u := &unstructured.Unstructured{Object: obj}
	return u, r.converterFor(ctx, d, u)
}

// converterFor finds the CRD of an object and its converter; a problem
// is reported (exit 2) and nil returned.
func (r *conversionRun) converterFor(ctx context.Context, d *manifest.Document, obj *unstructured.Unstructured) *convert.Converter {
	gvk := obj.GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		r.fail(2, d, nil, errors.New("not an object: apiVersion and kind are required"))
		return nil
	}
	crd, err := r.o.catalog.ForKind(ctx, gvk.GroupKind())
	switch {
	case err != nil:
		r.fail(2, d, obj, err)
		return nil
	case crd == nil:
		r.fail(2, d, obj, fmt.Errorf("no CustomResourceDefinition defines %s (convert converts custom resources; kubectl convert converts built-in kinds)", gvk.GroupKind()))
		return nil
	}
	c := r.converters[crd.Name]
	if c == nil {
		if c, err = convert.New(crd.CustomResourceDefinition, r.o.webhook); err != nil {
			r.fail(2, d, obj, err)
			return nil
		}
		r.converters[crd.Name] = c
	}
	if catalog.VersionNamed(crd.CustomResourceDefinition, gvk.Version) == nil {
		r.fail(2, d, obj, &convert.UnknownVersionError{CRD: crd.Name, Version: gvk.Version, Versions: convert.Versions(crd.CustomResourceDefinition, false)})
		return nil
	}
	return c
}

// targetVersion is the version an object of crd goes to: --output-version,
// or else the version discovery prefers among the CRD's served ones.
func (r *conversionRun) targetVersion(crd *apiextensionsv1.CustomResourceDefinition) (string, error) {
	version := r.o.OutputVersion
	if version == "" {
		version = catalog.PreferredVersion(crd)
	} else if gv, err := schema.ParseGroupVersion(version); err == nil && gv.Group != "" {
		if gv.Group != crd.Spec.Group {
			return "", fmt.Errorf("--output-version %s is not in the group %s of %s", r.o.OutputVersion, crd.Spec.Group, crd.Name)
		}
		version = gv.Version
	}
	if v := catalog.VersionNamed(crd, version); v == nil || !v.Served {
		return "", fmt.Errorf("CustomResourceDefinition %s serves no version %q (it serves %v)", crd.Name, version, convert.Versions(crd, true))
	}
	return version, nil
}

func (r *conversionRun) convert(ctx context.Context, docs []*manifest.Document) error {
	var out []runtime.Object
	for _, d := range docs {
		u, c := r.object(ctx, d)
		if c == nil {
			continue
		}
		version, err := r.targetVersion(c.CRD())
		if err != nil {
			r.fail(2, d, u, err)
			continue
		}
		converted, err := c.Read(u, version)
		if err != nil {
			r.fail(1, d, u, err)
			continue
		}
		out = append(out, converted)
	}
	if err := r.print(out); err != nil {
		return err
	}
	if r.code != 0 {
		return &ExitError{Code: r.code}
	}
	return nil
}

// print writes the converted objects: one as itself, several as a List,
// as kubectl convert prints them.
func (r *conversionRun) print(objs []runtime.Object) error {
	if len(objs) == 0 {
		return nil
	}
	var p printers.ResourcePrinter = &printers.YAMLPrinter{}
	if r.o.Output == "json" {
		p = &printers.JSONPrinter{}
	}
	if len(objs) == 1 {
		return p.PrintObj(objs[0], r.o.f.Streams.Out)
	}
	items := make([]any, len(objs))
	for i, o := range objs {
		items[i] = o.(*unstructured.Unstructured).Object
	}
	list := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "List", "items": items, "metadata": map[string]any{"resourceVersion": ""},
	}}
	return p.PrintObj(list, r.o.f.Streams.Out)
}

func (r *conversionRun) roundTrips(ctx context.Context, docs []*manifest.Document) error {
	var reports []convert.ObjectTrips
	for _, d := range docs {
		u, c := r.object(ctx, d)
		if c == nil {
			continue
		}
		if err := c.Unreachable(); err != nil {
			r.fail(2, d, u, err)
			continue
		}
		trips, err := c.RoundTrips(u)
		if err != nil {
			r.fail(1, d, u, err)
			continue
		}
		rep := convert.NewObjectTrips(d.File, d.Line, u.GetKind(), u.GetNamespace(), u.GetName(), u.GroupVersionKind().Version, trips, d.Position)
		if rep.Status != "unchanged" {
			r.code = max(r.code, 1)
		}
		reports = append(reports, rep)
	}
	var err error
	if r.o.Output == "json" {
		if reports == nil {
			reports = []convert.ObjectTrips{}
		}
		err = convert.WriteJSON(r.o.f.Streams.Out, reports)
	} else {
		err = convert.WriteTrips(r.o.f.Streams.Out, reports)
	}
	if err != nil {
		return err
	}
	if r.code != 0 {
		return &ExitError{Code: r.code}
	}
	return nil
}

// check reads the stored objects of the TYPE (or its NAMEs) at every
// served version through the cluster.
func (o *ConvertOptions) check(ctx context.Context) error {
	res, err := o.catalog.Resolve(ctx, o.types[0])
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	config, err := o.f.RESTConfig()
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	client, err := dynamic.NewForConfig(config)
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	namespace, _, err := o.f.ConfigFlags.ToRawKubeConfigLoader().Namespace()
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	var results []*convert.Stored
	code := 0
	for _, rs := range res {
		if rs.CRD == nil {
			return &ExitError{Code: 2, Err: fmt.Errorf("%s is not defined by a CustomResourceDefinition", rs.Mapping.Resource.GroupResource())}
		}
		crd := rs.CRD.CustomResourceDefinition
		storage, err := apihelpers.GetCRDStorageVersion(crd)
		if err != nil {
			return &ExitError{Code: 2, Err: err}
		}
		versions := []string{storage}
		for _, v := range convert.Versions(crd, true) {
			if v != storage {
				versions = append(versions, v)
			}
		}
		s, err := convert.CheckStored(ctx, client, crd, convert.StoredOptions{Versions: versions, PageSize: o.ChunkSize,
			Concurrency: 8, Names: o.types[1:], Namespace: namespace})
		if err != nil {
			return &ExitError{Code: 2, Err: fmt.Errorf("%s: %w", crd.Name, err)}
		}
		if len(s.Failures) > 0 || s.Incomplete != "" {
			code = 1
		}
		results = append(results, s)
	}
	if o.Output == "json" {
		var doc any = results
		if len(results) == 1 {
			doc = results[0]
		}
		err = convert.WriteJSON(o.f.Streams.Out, doc)
	} else {
		err = convert.WriteStored(o.f.Streams.Out, results)
	}
	if err != nil {
		return err
	}
	if code != 0 {
		return &ExitError{Code: code}
	}
	return nil
}

// objectName is namespace/name, or name.
func objectName(o *unstructured.Unstructured) string {
	name := o.GetName()
	if name == "" {
		name = o.GetGenerateName() + "*"
	}
	if ns := o.GetNamespace(); ns != "" {
		return ns + "/" + name
	}
	return name
}
