package cmd

import (
	"context"
	"net/http"
	"os"
	"path/filepath"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/printers"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/klog/v2"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
)

// kubectlFactory makes the factory kubectl's get runs on. Online it is the
// kubeconfig's, with every client's transport answering Table requests for
// custom resources on the client. Offline it serves the objects named by
// filenames, and discovery from the --crds files, all in memory.
func (f *Factory) kubectlFactory(ctx context.Context, resolved []catalog.Resource, filenames *[]string, recursive bool) (cmdutil.Factory, error) {
	cat, err := f.Catalog()
	if err != nil {
		return nil, err
	}
	known := map[schema.GroupResource]*apiextensionsv1.CustomResourceDefinition{}
	for _, r := range resolved {
		if r.CRD != nil {
			known[r.Mapping.Resource.GroupResource()] = r.CRD.CustomResourceDefinition
		}
	}
	tables := printers.NewTables(func(ctx context.Context, gr schema.GroupResource) (*apiextensionsv1.CustomResourceDefinition, error) {
		if crd, ok := known[gr]; ok {
			return crd, nil
		}
		if gr.Group == "" {
			return nil, nil
		}
		crd, err := cat.Source().Get(ctx, gr.String())
		switch {
		case apierrors.IsNotFound(err):
			return nil, nil
		case apierrors.IsForbidden(err):
			klog.V(2).InfoS("Cannot read the CustomResourceDefinition; asking the server for the table", "name", gr.String(), "err", err)
			return nil, nil
		case err != nil:
			return nil, err
		}
		return crd.CustomResourceDefinition, nil
	})

	if !f.Offline() {
		f.ConfigFlags.WrapConfigFn = func(c *rest.Config) *rest.Config {
			c.Wrap(func(rt http.RoundTripper) http.RoundTripper {
				return &printers.Transport{Next: rt, Tables: tables}
			})
			return c
		}
		return cmdutil.NewFactory(f.ConfigFlags), nil
	}
	local, err := f.localServer(ctx, cat, filenames, recursive)
	if err != nil {
		return nil, err
	}
	getter, err := f.clientGetter(&printers.Transport{Next: local, Tables: tables})
	if err != nil {
		return nil, err
	}
	return cmdutil.NewFactory(getter), nil
}

// clientGetter returns the kubeconfig flags online; offline, a getter whose
// discovery comes from the --crds files and whose requests go to transport
// (nil: none may be made).
func (f *Factory) clientGetter(transport http.RoundTripper) (genericclioptions.RESTClientGetter, error) {
	if !f.Offline() {
		return f.ConfigFlags, nil
	}
	cat, err := f.Catalog()
	if err != nil {
		return nil, err
	}
	if transport == nil {
		transport = printers.NewLocalServer(nil, nil)
	}
	return &offlineGetter{
		ConfigFlags: f.ConfigFlags,
		discovery:   cat.Source().Discovery(),
		transport:   transport,
		warn:        f.Warn,
	}, nil
}

// localServer serves the objects named by filenames, as created.
func (f *Factory) localServer(ctx context.Context, cat *catalog.Catalog, filenames *[]string, recursive bool) (*printers.LocalServer, error) {
	if err := f.stdinToFile(filenames); err != nil {
		return nil, err
	}
	objs, err := readObjects(*filenames, recursive)
	if err != nil {
		return nil, err
	}
	crds, err := cat.Source().List(ctx)
	if err != nil {
		return nil, err
	}
	plain := catalog.Definitions(crds)
	if err := asCreated(plain, objs); err != nil {
		return nil, err
	}
	return printers.NewLocalServer(plain, objs), nil
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
		f.cleanups = append(f.cleanups, func() { os.RemoveAll(dir) })
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
	for _, d := range docs {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(d.JSON); err != nil {
			return nil, &manifest.Error{File: d.File, Line: d.Line, Column: d.Column, Msg: err.Error()}
		}
		objs = append(objs, u)
	}
	return objs, nil
}

// asCreated turns each object of a known CRD into what the server would
// store for it, so that columns show defaults as they would online.
func asCreated(crds []*apiextensionsv1.CustomResourceDefinition, objs []*unstructured.Unstructured) error {
	byKind := map[schema.GroupKind]*apiextensionsv1.CustomResourceDefinition{}
	for _, c := range crds {
		byKind[schema.GroupKind{Group: c.Spec.Group, Kind: c.Spec.Names.Kind}] = c
	}
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		if crd := byKind[gvk.GroupKind()]; crd != nil {
			if err := validate.AsCreated(crd, gvk.Version, o.Object); err != nil {
				return err
			}
		}
	}
	return nil
}

// offlineGetter is the RESTClientGetter of kubectl's get offline: the
// kubeconfig flags for namespaces, discovery from the CRD files, and a
// transport that never leaves the process.
type offlineGetter struct {
	*genericclioptions.ConfigFlags
	discovery discovery.CachedDiscoveryInterface
	transport http.RoundTripper
	warn      func(string)
}

func (g *offlineGetter) ToRESTConfig() (*rest.Config, error) {
	return &rest.Config{Host: "https://kubectl-crd.invalid", Transport: g.transport}, nil
}

func (g *offlineGetter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return g.discovery, nil
}

func (g *offlineGetter) ToRESTMapper() (meta.RESTMapper, error) {
	return restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(g.discovery), g.discovery, g.warn), nil
}
