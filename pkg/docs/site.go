// Package docs writes a reference of CRDs that opens from disk: an HTML
// site (an index with search, a page per CRD) or Markdown files. What it
// says of a schema comes from pkg/explain (the field walk and the typed
// constraints), of printer columns from pkg/printers, and of changes
// between versions from pkg/diff: this package only lays them out.
package docs

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/cost"
	"github.com/kubectl-crd/kubectl-crd/pkg/diff"
	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/kubectl-crd/kubectl-crd/pkg/printers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/util/version"
	apiversion "k8s.io/apimachinery/pkg/version"
)

// Site is the reference of a set of CRDs, by group.
type Site struct {
	Groups []Group
	// Lint is the lint profile whose findings the pages show ("": none).
	Lint string
	// KubernetesVersion is the version the samples and constraints are
	// the answers of (nil: the newest).
	KubernetesVersion *version.Version
}

// Group is the CRDs of one API group, by kind.
type Group struct {
	Name  string
	Pages []*Page
}

// Page is one CRD's reference.
type Page struct {
	CRD *apiextensionsv1.CustomResourceDefinition
	// File is the page's file name in the site, without its extension.
	File string
	// Summary is the first paragraph of the preferred version's schema
	// description.
	Summary string
	// Versions are newest first, as discovery orders them.
	Versions []*Version
}

// Version is one version of a CRD: its columns, subresources, fields and
// what changed from the version before it.
type Version struct {
	apiextensionsv1.CustomResourceDefinitionVersion
	Description string
	// Constraints are those of the schema's root (rules on the whole
	// object, required top-level fields); Costs the costs of its rules.
	Constraints []explain.Constraint
	Costs       map[string]string
	// Lint are lint's findings on the version as a whole, or on fields
	// the page writes elsewhere.
	Lint    []Note
	Columns []apiextensionsv1.CustomResourceColumnDefinition
	Fields  []*Field
	// Previous is the version before this one, Changes what changed from
	// it (nil for the oldest).
	Previous string
	Changes  []diff.Change
	// Sample and FullSample are objects of the version the server
	// accepts, as YAML: the required fields, and every field ("" when
	// none).
	Sample, FullSample string
}

// Field is a node of a version's field tree.
type Field struct {
	Name        string
	Path        string // spec.ports.protocol
	Anchor      string // v1.spec.ports.protocol
	Type        string
	Required    bool
	Description string
	Constraints []explain.Constraint
	Fields      []*Field
	// Costs are the estimated costs of the field's CEL rules, by
	// costKey (pkg/cost).
	Costs map[string]string
	// Lint are lint's findings on the field (and its items or values).
	Lint []Note
	// SameAs, when set, is the anchor of a field with the same fields
	// below it (the same schema, repeated): they are written there, once,
	// and linked from here; SameAsPath is that field's version and path.
	SameAs, SameAsPath string
}

// Options are what a reference shows beyond the CRDs.
type Options struct {
	// Sample makes the samples (nil: none).
	Sample Sampler
	// Lint is the lint profile whose findings each field shows ("":
	// none).
	Lint string
	// KubernetesVersion is the version the reference is the answer of
	// (nil: the newest), said on the index.
	KubernetesVersion *version.Version
}

// Sampler makes an object of a CRD version for its page, with the
// required fields or every field, as YAML; docs can do without one.
type Sampler func(crd *apiextensionsv1.CustomResourceDefinition, version string, full bool) (string, error)

// Build lays out the reference of crds. A version without a schema is
// listed with what it has (columns, subresources) and no fields.
func Build(crds []*apiextensionsv1.CustomResourceDefinition, opts Options) (*Site, error) {
	byGroup := map[string][]*Page{}
	for _, crd := range crds {
		p, err := page(crd, opts)
		if err != nil {
			return nil, fmt.Errorf("CustomResourceDefinition %s: %w", crd.Name, err)
		}
		byGroup[crd.Spec.Group] = append(byGroup[crd.Spec.Group], p)
	}
	site := &Site{Lint: opts.Lint, KubernetesVersion: kubeversion.OrNewest(opts.KubernetesVersion)}
	for name, pages := range byGroup {
		slices.SortFunc(pages, func(a, b *Page) int {
			return strings.Compare(a.CRD.Spec.Names.Kind+"/"+a.CRD.Name, b.CRD.Spec.Names.Kind+"/"+b.CRD.Name)
		})
		site.Groups = append(site.Groups, Group{Name: name, Pages: pages})
	}
	slices.SortFunc(site.Groups, func(a, b Group) int { return strings.Compare(a.Name, b.Name) })
	return site, nil
}

func page(crd *apiextensionsv1.CustomResourceDefinition, opts Options) (*Page, error) {
	p := &Page{CRD: crd, File: crd.Name}
	sample := opts.Sample
	// One estimate of the CRD's rules for the costs on the page and
	// lint's bounds.
	est, _ := cost.Estimate(crd)
	findings, err := lintFindings(crd, est, opts.Lint)
	if err != nil {
		return nil, err
	}
	versions := slices.Clone(crd.Spec.Versions)
	slices.SortStableFunc(versions, func(a, b apiextensionsv1.CustomResourceDefinitionVersion) int {
		return apiversion.CompareKubeAwareVersionStrings(b.Name, a.Name)
	})
	shared := subtrees{}
	for i, v := range versions {
		pv := &Version{CustomResourceDefinitionVersion: v}
		cols, err := printers.Columns(crd, v.Name)
		if err != nil {
			return nil, err
		}
		pv.Columns = cols
		if root, err := explain.Schema(crd, v.Name); err == nil {
			pv.Description = root.Description
			pv.Constraints = explain.Constraints(root)
			pv.Fields = fieldTree(v.Name, root, shared)
			pv.Costs = ruleCosts(est, v.Name, pv.Fields)
		}
		pv.Lint = placeFindings(pv.Fields, findings[v.Name])
		if i+1 < len(versions) {
			pv.Previous = versions[i+1].Name
			pv.Changes = diff.Between(versions[i+1], v)
		}
		if sample != nil && v.Served && v.Schema != nil {
			if pv.Sample, err = sample(crd, v.Name, false); err != nil {
				return nil, fmt.Errorf("version %s: a sample: %w", v.Name, err)
			}
			if pv.FullSample, err = sample(crd, v.Name, true); err != nil {
				return nil, fmt.Errorf("version %s: a sample: %w", v.Name, err)
			}
		}
		p.Versions = append(p.Versions, pv)
	}
	if pref := catalog.VersionNamed(crd, catalog.PreferredVersion(crd)); pref != nil {
		if root, err := explain.Schema(crd, pref.Name); err == nil {
			p.Summary, _, _ = strings.Cut(strings.TrimSpace(root.Description), "\n\n")
		}
	}
	return p, nil
}

// subtrees are the schemas with many fields below them already written
// on a page, by their JSON, with the field they were written at.
type subtrees map[string]*Field

// minShared is how many fields a subtree needs below it to be written
// once and linked where it occurs again: small ones ({name, value}) read
// better in place.
const minShared = 8

// fieldTree nests explain's depth-first walk of a version's schema. A
// subtree of minShared fields or more that the page already has (a
// schema a CRD repeats at several places, or in several versions) is
// written once: later occurrences link to it (a page of Argo CD's
// ApplicationSet went from 3 MB to a fraction of that).
func fieldTree(versionName string, root *apiextensionsv1.JSONSchemaProps, shared subtrees) []*Field {
	var top []*Field
	byPath := map[string]*Field{}
	skip := "" // the path whose descendants are written elsewhere
	for _, n := range explain.Walk(root, nil, true) {
		path := strings.Join(n.Path, ".")
		if skip != "" && strings.HasPrefix(path, skip+".") {
			continue
		}
		f := &Field{
			Name: n.Path[len(n.Path)-1], Path: path, Anchor: versionName + "." + path,
			Type: explain.TypeName(n.Schema), Required: n.Required, Description: n.Schema.Description,
			Constraints: explain.Constraints(n.Schema),
		}
		if len(explain.Walk(n.Schema, nil, true)) >= minShared {
			key := subtreeKey(n.Schema)
			if first := shared[key]; first != nil {
				f.SameAs, f.SameAsPath, skip = first.Anchor, first.Anchor, path
			} else {
				shared[key] = f
			}
		}
		byPath[path] = f
		if parent := byPath[strings.Join(n.Path[:len(n.Path)-1], ".")]; len(n.Path) > 1 && parent != nil {
			parent.Fields = append(parent.Fields, f)
		} else {
			top = append(top, f)
		}
	}
	return top
}

// subtreeKey identifies the fields below a schema: its JSON, without its
// own description (the same fields may be described differently where
// they are used).
func subtreeKey(s *apiextensionsv1.JSONSchemaProps) string {
	c := *s
	c.Description = ""
	data, _ := json.Marshal(&c)
	return string(data)
}
