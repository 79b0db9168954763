package manifest

import (
	"fmt"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Kustomization is the input a kustomization directory builds (kustomize
// build, with kubectl's legacy order), named "DIR (kustomize build)".
func Kustomization(dir string) (*Input, error) {
	opts := krusty.MakeDefaultOptions()
	opts.Reorder = krusty.ReorderOptionLegacy
	objs, err := krusty.MakeKustomizer(opts).Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("building the kustomization %s: %w", dir, err)
	}
	data, err := objs.AsYaml()
	if err != nil {
		return nil, err
	}
	return InputOf(dir+" (kustomize build)", data), nil
}
