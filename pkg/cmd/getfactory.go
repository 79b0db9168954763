package cmd

import (
	"context"
	"net/http"
	"os"
	"path/filepath"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/localapi"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/tabletransport"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// kubectlFactory makes the factory kubectl's get runs on. Online it is the
// kubeconfig's, with every client's transport answering Table requests for
// custom resources on the client. Offline it serves the objects named by
// filenames (pkg/localapi), and discovery from the --crds files.
func (f *Factory) kubectlFactory(ctx context.Context, cat *catalog.Catalog, resolved []catalog.Resource, filenames *[]string, recursive bool) (cmdutil.Factory, error) {
	known := map[schema.GroupResource]*apiextensionsv1.CustomResourceDefinition{}
	for _, r := range resolved {
		if r.CRD != nil {
			known[r.Mapping.Resource.GroupResource()] = r.CRD.CustomResourceDefinition
		}
	}
	tables := tabletransport.NewTables(func(ctx context.Context, gr schema.GroupResource) (*apiextensionsv1.CustomResourceDefinition, error) {
		if crd, ok := known[gr]; ok {
			return crd, nil
		}
		crd, err := cat.ForResource(ctx, gr)
		switch {
		case apierrors.IsForbidden(err):
			klog.V(2).InfoS("Cannot read the CustomResourceDefinition; asking the server for the table", "name", gr.String(), "err", err)
			return nil, nil
		case err != nil || crd == nil:
			return nil, err
		}
		return crd.CustomResourceDefinition, nil
	})

	if !f.Offline() {
		f.ConfigFlags.WrapConfigFn = func(c *rest.Config) *rest.Config {
			c = nameTheProxy(c)
			prefix := ""
			if base, _, err := rest.DefaultServerUrlFor(c); err == nil {
				prefix = base.Path
			}
			c.Wrap(func(rt http.RoundTripper) http.RoundTripper {
				return &tabletransport.Transport{Next: rt, Tables: tables, Prefix: prefix}
			})
			return c
		}
		return cmdutil.NewFactory(f.ConfigFlags), nil
	}
	server, err := f.localServer(ctx, cat, resolved, filenames, recursive)
	if err != nil {
		return nil, err
	}
	getter, err := newOfflineGetter(f.ConfigFlags, cat, &tabletransport.Transport{Next: server, Tables: tables})
	if err != nil {
		return nil, err
	}
	return cmdutil.NewFactory(getter), nil
}

// localServer serves the objects named by filenames, as created, with the
// CRDs of the resources asked for and of the objects' kinds (kubectl's get
// -f asks for each object by its resource): only those are decoded.
func (f *Factory) localServer(ctx context.Context, cat *catalog.Catalog, resolved []catalog.Resource, filenames *[]string, recursive bool) (*localapi.Server, error) {
	if err := f.stdinToFile(filenames); err != nil {
		return nil, err
	}
	objs, err := readObjects(*filenames, recursive)
	if err != nil {
		return nil, err
	}
	var crds []*apiextensionsv1.CustomResourceDefinition
	asked := map[string]bool{}
	for _, r := range resolved {
		if r.CRD != nil && !asked[r.CRD.Name] {
			asked[r.CRD.Name] = true
			crds = append(crds, r.CRD.CustomResourceDefinition)
		}
	}
	kinds := map[schema.GroupKind]bool{}
	for _, o := range objs {
		kinds[o.GroupVersionKind().GroupKind()] = true
	}
	ofObjects, err := cat.ListWhere(ctx, func(crd *apiextensionsv1.CustomResourceDefinition) bool {
		return !asked[crd.Name] && kinds[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}]
	})
	if err != nil {
		return nil, err
	}
	return localapi.NewServer(append(crds, catalog.Definitions(ofObjects)...), objs)
}

// stdinToFile saves standard input to a file when it is among filenames,
// so that both kubectl's reader and the local server can read it.
func (f *Factory) stdinToFile(filenames *[]string) error {
	for i, name := range *filenames {
		if name != "-" {
			continue
		}
		dir, err := os.MkdirTemp("", "kubectl-crd-stdin-")
		if err != nil {
			return err
		}
		f.onCleanup(func() { os.RemoveAll(dir) })
		docs, err := manifest.ReadAll("-", f.Streams.In)
		if err != nil {
			return err
		}
		path := filepath.Join(dir, "stdin.json")
		out, err := os.Create(path)
		if err != nil {
			return err
		}
		for _, d := range docs {
			out.Write(d.JSON)
			out.Write([]byte("\n"))
		}
		if err := out.Close(); err != nil {
			return err
		}
		(*filenames)[i] = path
	}
	return nil
}

func readObjects(paths []string, recursive bool) ([]*unstructured.Unstructured, error) {
	docs, err := manifest.ReadPaths(paths, recursive, nil)
	if err != nil {
		return nil, err
	}
	objs := make([]*unstructured.Unstructured, 0, len(docs))
	for i := range docs {
		d := &docs[i]
		obj, err := d.TakeObject()
		if err != nil {
			return nil, &manifest.Error{File: d.File, Line: d.Line, Column: d.Column, Msg: err.Error()}
		}
		objs = append(objs, &unstructured.Unstructured{Object: obj})
	}
	return objs, nil
}

// offlineGetter is the RESTClientGetter of kubectl's commands offline: the
// kubeconfig flags for namespaces, discovery from the CRD files, and a
// transport that never leaves the process.
type offlineGetter struct {
	*genericclioptions.ConfigFlags
	discovery discovery.CachedDiscoveryInterface
	mapper    meta.RESTMapper
	transport http.RoundTripper
}

func newOfflineGetter(flags *genericclioptions.ConfigFlags, cat *catalog.Catalog, transport http.RoundTripper) (*offlineGetter, error) {
	dc, err := cat.Discovery()
	if err != nil {
		return nil, err
	}
	mapper, err := cat.RESTMapper()
	if err != nil {
		return nil, err
	}
	return &offlineGetter{ConfigFlags: flags, discovery: dc, mapper: mapper, transport: transport}, nil
}

func (g *offlineGetter) ToRESTConfig() (*rest.Config, error) {
	return &rest.Config{Host: "https://kubectl-crd.invalid", Transport: g.transport}, nil
}

func (g *offlineGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return g.discovery, nil
}

func (g *offlineGetter) ToRESTMapper() (meta.RESTMapper, error) {
	return g.mapper, nil
}
