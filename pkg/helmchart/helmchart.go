// Package helmchart reads the CRDs a Helm chart installs: the files of its
// crds/ directories (its dependencies' too) as they are, through Helm's
// own chart loader, as helm install and helm template --include-crds take
// them.
//
// A chart's templates are not rendered here. Helm's template engine needs
// its chartutil package, which, when the program starts, adds the
// apiextensions.k8s.io types to client-go's shared scheme (to compute
// helm's default capabilities); the API server's OpenAPI builder names
// definitions from that scheme, so every command of the binary would then
// publish OpenAPI the server does not. What templates render is read by
// piping helm template into -f - or --crds -.
package helmchart

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"helm.sh/helm/v3/pkg/chart/loader"
)

// Is tells whether path names a chart: a directory with a Chart.yaml, or
// a chart archive (.tgz).
func Is(path string) bool {
	st, err := os.Stat(path)
	if err != nil {
		return false
	}
	if st.IsDir() {
		_, err := os.Stat(filepath.Join(path, "Chart.yaml"))
		return err == nil
	}
	return strings.HasSuffix(path, ".tgz") || strings.HasSuffix(path, ".tar.gz")
}

// Read reads the crds/ files of the chart at path and of its
// dependencies, in the order helm installs them, each named by its path
// (a file in an archive as ARCHIVE#FILE).
func Read(path string) ([]manifest.Text, error) {
	ch, err := loader.Load(path)
	if err != nil {
		return nil, fmt.Errorf("not a chart Helm loads: %v", err)
	}
	name := namer(path)
	var texts []manifest.Text
	for _, crd := range ch.CRDObjects() {
		texts = append(texts, manifest.Text{Name: name(crd.Filename), Data: crd.File.Data})
	}
	if len(texts) == 0 {
		return nil, errors.New("the chart has no crds/ files; what its templates render is read from helm template's output (helm template CHART --include-crds | kubectl crd ... -f -)")
	}
	return texts, nil
}

// namer names a chart's file (CHART/crds/x.yaml) under path.
func namer(path string) func(string) string {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return func(file string) string {
			_, inChart, _ := strings.Cut(file, "/")
			return filepath.Join(path, filepath.FromSlash(inChart))
		}
	}
	return func(file string) string { return path + "#" + file }
}
