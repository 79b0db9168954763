package crdtest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// find is the CRD a suite names: by crdName in the catalog, or the file
// its crd field names.
func (r *Runner) find(ctx context.Context, s *Suite) target {
	t := r.findCRD(ctx, s)
	if t.err != nil || s.Version == "" {
		return t
	}
	// The version under test must be one the CRD serves: the cases run
	// at it.
	if v := catalog.VersionNamed(t.crd, s.Version); v == nil || !v.Served {
		return target{err: &manifest.Error{File: s.File, Line: s.VersionLine, Msg: fmt.Sprintf("version: %s does not serve %s (it serves %s)",
			t.crd.Name, s.Version, strings.Join(catalog.ServedVersions(t.crd), ", "))}}
	}
	t.version = s.Version
	return t
}

// findCRD is the CRD a suite names.
func (r *Runner) findCRD(ctx context.Context, s *Suite) target {
	if s.Err != nil {
		return target{err: s.Err}
	}
	if s.CRD != "" {
		path := s.CRD
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(s.File), path)
		}
		files, err := catalog.ReadFiles([]string{path}, nil, nil)
		if err != nil {
			return target{err: &manifest.Error{File: s.File, Line: s.CRDLine, Msg: "crd: " + err.Error()}}
		}
		list, err := files.List(ctx)
		if err != nil || len(list) != 1 {
			return target{err: &manifest.Error{File: s.File, Line: s.CRDLine, Msg: fmt.Sprintf("crd: %s holds %d CustomResourceDefinitions, not one", path, len(list))}}
		}
		return target{crd: list[0].CustomResourceDefinition}
	}
	crd, err := r.Catalog.ForResource(ctx, schema.ParseGroupResource(s.CRDName))
	switch {
	case err != nil:
		return target{err: &manifest.Error{File: s.File, Line: s.CRDLine, Msg: fmt.Sprintf("crdName %s: %v", s.CRDName, err)}}
	case crd == nil:
		return target{err: &manifest.Error{File: s.File, Line: s.CRDLine, Msg: fmt.Sprintf("crdName: no CustomResourceDefinition %s%s", s.CRDName, r.closeNames(ctx, s.CRDName))}}
	}
	variants, err := r.Catalog.Variants(ctx, crd.Name)
	if err != nil {
		return target{err: &manifest.Error{File: s.File, Line: s.CRDLine, Msg: fmt.Sprintf("crdName %s: %v", s.CRDName, err)}}
	}
	if len(variants) > 1 {
		chosen, err := chooseVariant(s, variants, r.FeatureGates)
		if err != nil {
			return target{err: &manifest.Error{File: s.File, Line: s.CRDLine, Msg: err.Error()}}
		}
		about := strings.Join(catalog.FeatureSets(chosen.CustomResourceDefinition), ",")
		if about == "" {
			about = "serves " + strings.Join(catalog.ServedVersions(chosen.CustomResourceDefinition), ", ")
		}
		return target{crd: chosen.CustomResourceDefinition, variant: chosen.Origin + " (" + about + ")"}
	}
	return target{crd: crd.CustomResourceDefinition}
}

// closeNames says which CRDs of the catalog have a name close to name,
// or where CRDs come from when none has.
func (r *Runner) closeNames(ctx context.Context, name string) string {
	outlines, err := r.Catalog.Outlines(ctx)
	if err != nil || len(outlines) == 0 {
		return " (none is given: pass the CRDs with --crds)"
	}
	names := make([]string, len(outlines))
	for i, o := range outlines {
		names[i] = o.Name
	}
	if close := catalog.Closest(name, names); len(close) > 0 {
		return "; did you mean " + strings.Join(close, " or ") + "?"
	}
	return fmt.Sprintf(" among the %d given", len(names))
}
