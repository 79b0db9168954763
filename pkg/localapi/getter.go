package localapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
)

// ServerFor serves the objects of the files paths name, as created, with
// the CRDs of the resources asked for (get's arguments, resolved) and
// those of the objects' kinds (kubectl's get -f asks for each object by
// its resource): only those are decoded. What kubectl reads with a
// warning (a key given twice) is said on warn.
func ServerFor(ctx context.Context, cat *catalog.Catalog, resolved []catalog.Resource, paths []string, recursive bool, warn io.Writer) (*Server, error) {
	docs, err := manifest.ReadPaths(paths, recursive, nil)
	if err != nil {
		return nil, err
	}
	for _, d := range docs {
		for _, w := range d.Warnings {
			fmt.Fprintf(warn, "warning: %v%s\n", w, w.Sent)
		}
	}
	names := map[string]bool{}
	var crds []*catalog.CRD
	for _, r := range resolved {
		if r.CRD != nil && !names[r.CRD.Name] {
			names[r.CRD.Name] = true
			crds = append(crds, r.CRD)
		}
	}
	kinds := map[schema.GroupKind]bool{}
	for i := range docs {
		tm := docs[i].TypeMeta()
		if gv, err := schema.ParseGroupVersion(tm.APIVersion); err == nil {
			kinds[gv.WithKind(tm.Kind).GroupKind()] = true
		}
	}
	ofObjects, err := cat.ListWhere(ctx, func(crd *apiextensionsv1.CustomResourceDefinition) bool {
		return !names[crd.Name] && kinds[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}]
	})
	if err != nil {
		return nil, err
	}
	crds = append(crds, ofObjects...)
	return NewServer(catalog.Definitions(crds), objectsOf(docs, crds))
}

// objectsOf decodes the objects of docs. One that cannot be decoded, or
// at a version its CRD does not serve, is left out: kubectl's get -f,
// which reads the same files, says so for it (as it says of an object of
// a kind the cluster does not serve), after printing the others.
func objectsOf(docs []manifest.Document, crds []*catalog.CRD) []*unstructured.Unstructured {
	byKind := map[schema.GroupKind]*catalog.CRD{}
	for _, crd := range crds {
		byKind[schema.GroupKind{Group: crd.Spec.Group, Kind: crd.Spec.Names.Kind}] = crd
	}
	objs := make([]*unstructured.Unstructured, 0, len(docs))
	for i := range docs {
		d := &docs[i]
		obj, err := d.TakeObject()
		if err != nil {
			continue
		}
		u := &unstructured.Unstructured{Object: obj}
		gvk := u.GroupVersionKind()
		if crd := byKind[gvk.GroupKind()]; crd != nil && !apihelpers.HasServedCRDVersion(crd.CustomResourceDefinition, gvk.Version) {
			continue
		}
		objs = append(objs, u)
	}
	return objs
}

// Getter is the client getter of kubectl's commands without a cluster:
// the kubeconfig flags for namespaces, discovery from the catalog's CRD
// files, and a transport that never leaves the process.
type Getter struct {
	*genericclioptions.ConfigFlags
	discovery discovery.CachedDiscoveryInterface
	mapper    meta.RESTMapper
	transport http.RoundTripper
}

// NewGetter makes the Getter of a catalog over files, answering through
// transport (a Server, under tabletransport's Transport).
func NewGetter(flags *genericclioptions.ConfigFlags, cat *catalog.Catalog, transport http.RoundTripper) (*Getter, error) {
	dc, err := cat.Discovery()
	if err != nil {
		return nil, err
	}
	mapper, err := cat.RESTMapper()
	if err != nil {
		return nil, err
	}
	return &Getter{ConfigFlags: flags, discovery: dc, mapper: mapper, transport: transport}, nil
}

func (g *Getter) ToRESTConfig() (*rest.Config, error) {
	return &rest.Config{Host: "https://kubectl-crd.invalid", Transport: g.transport}, nil
}

func (g *Getter) ToDiscoveryClient() (discovery.CachedDiscoveryInterface, error) {
	return g.discovery, nil
}

func (g *Getter) ToRESTMapper() (meta.RESTMapper, error) {
	return g.mapper, nil
}

// SourcesToFiles writes what src reads for filenames (standard input,
// URLs, git revisions, charts) to files, one per text, and names their
// directory in the source's place, so that both kubectl's reader and the
// local server read them; cleanup is given their removal. With keepStdin,
// "-" is left to kubectl's own reader.
func SourcesToFiles(filenames []string, recursive bool, src manifest.Sources, keepStdin bool, cleanup func(func())) error {
	fileSafe := strings.NewReplacer("/", "_", ":", "_", "#", "_", " ", "_", "\\", "_")
	for i, name := range filenames {
		if name == "-" && keepStdin {
			continue
		}
		texts, ok, err := src.Texts(name, recursive)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		dir, err := os.MkdirTemp("", "kubectl-crd-source-")
		if err != nil {
			return err
		}
		cleanup(func() { os.RemoveAll(dir) })
		for j, t := range texts {
			docs, err := manifest.Read(t.Name, t.Data)
			if err != nil {
				return err
			}
			var data []byte
			for _, d := range docs {
				data = append(append(data, d.JSON...), '\n')
			}
			// Named after the text, for kubectl's messages that name the file.
			file := fmt.Sprintf("%04d-%s.json", j, fileSafe.Replace(t.Name))
			if err := os.WriteFile(filepath.Join(dir, file), data, 0o600); err != nil {
				return err
			}
		}
		filenames[i] = dir
	}
	return nil
}
