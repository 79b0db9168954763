package kal

import (
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/lint"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// projectCRDs are a project's CRDs and lint's findings on them.
type projectCRDs struct {
	versions map[string]*apiextensionsv1.JSONSchemaProps // schemas by CRD/VERSION
	names    map[string]string                           // CRD names by GROUP/KIND
	findings []lint.Finding
}

// readProject reads every CRD of a directory and lints them under the
// kube profile, every check on.
func readProject(t *testing.T, dir string) projectCRDs {
	t.Helper()
	docs, err := manifest.ReadPaths([]string{dir}, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	crds, _, err := catalog.Split(docs)
	if err != nil {
		t.Fatal(err)
	}
	var checks []string
	for _, c := range lint.Checks {
		checks = append(checks, c.Name+"=info")
	}
	found, err := lint.Lint(crds, lint.Options{Profile: "kube", Checks: checks})
	if err != nil {
		t.Fatal(err)
	}
	p := projectCRDs{versions: map[string]*apiextensionsv1.JSONSchemaProps{}, names: map[string]string{}, findings: found}
	for _, c := range crds {
		p.names[c.Spec.Group+"/"+c.Spec.Names.Kind] = c.Name
		for _, v := range c.Spec.Versions {
			if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
				p.versions[c.Name+"/"+v.Name] = v.Schema.OpenAPIV3Schema
			}
		}
	}
	return p
}

// places are the fields of the CRDs a KAL finding lands on and that
// show what it finds; where it lands only on fields that do not show
// it, why is the reason.
func (p projectCRDs) places(k kalFinding) (visible []place, why string) {
	for _, u := range k.Fields {
		crd := p.names[u.Group+"/"+u.Kind]
		schema, ok := p.versions[crd+"/"+u.Version]
		if !ok {
			continue
		}
		field, parent := lookup(schema, u.Field)
		if field == nil {
			continue
		}
		if why = goOnly(k, field, parent, u.Field); why == "" {
			visible = append(visible, place{k.Linter, crd, u.Version, u.Field})
		}
	}
	return visible, why
}

// lookup finds a field path (spec.items[*].name) in a schema: the
// field's schema and its parent object's (nil, nil: no such field). A
// property name may hold dots: at each step the longest name the rest
// starts with is taken.
func lookup(s *apiextensionsv1.JSONSchemaProps, path string) (field, parent *apiextensionsv1.JSONSchemaProps) {
	for path != "" {
		path = strings.TrimPrefix(path, ".")
		if rest, ok := strings.CutPrefix(path, "[*]"); ok {
			switch {
			case s.Items != nil && s.Items.Schema != nil:
				s = s.Items.Schema
			case s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil:
				s = s.AdditionalProperties.Schema
			default:
				return nil, nil
			}
			parent, path = nil, rest
			continue
		}
		best := ""
		for k := range s.Properties {
			if strings.HasPrefix(path, k) && len(k) > len(best) && (len(path) == len(k) || path[len(k)] == '.' || path[len(k)] == '[') {
				best = k
			}
		}
		if best == "" {
			return nil, nil
		}
		next := s.Properties[best]
		parent, s, path = s, &next, path[len(best):]
	}
	return s, parent
}
