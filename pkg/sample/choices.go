package sample

import (
	"slices"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// resolve folds a schema's choices into it: the chosen branch of oneOf and
// anyOf and every branch of allOf add their value constraints (required
// fields, enums, patterns, bounds, lengths, counts, and those of nested
// properties and items). A structural schema's branches hold only such
// constraints. It returns the fields to leave out: those another oneOf
// branch requires (an object that matches two branches fails oneOf), and
// the last of those a not requires.
func (g *generator) resolve(s *apiextensionsv1.JSONSchemaProps, path string) (*apiextensionsv1.JSONSchemaProps, map[string]bool) {
	if len(s.OneOf) == 0 && len(s.AnyOf) == 0 && len(s.AllOf) == 0 && s.Not == nil {
		return s, nil
	}
	out := *s
	var excluded map[string]bool
	exclude := func(name string) {
		if excluded == nil {
			excluded = map[string]bool{}
		}
		excluded[name] = true
	}
	for i := range s.AllOf {
		merge(&out, &s.AllOf[i])
	}
	if len(s.OneOf) > 0 {
		b := g.choose(path+"#oneOf", len(s.OneOf))
		merge(&out, &s.OneOf[b])
		for i := range s.OneOf {
			for _, r := range s.OneOf[i].Required {
				if i != b && !slices.Contains(s.OneOf[b].Required, r) {
					exclude(r)
				}
			}
		}
	}
	if len(s.AnyOf) > 0 {
		merge(&out, &s.AnyOf[g.choose(path+"#anyOf", len(s.AnyOf))])
	}
	if n := s.Not; n != nil {
		if len(n.Required) > 0 {
			exclude(n.Required[len(n.Required)-1])
		}
		if len(n.Enum) > 0 && len(out.Enum) > 0 {
			var kept []apiextensionsv1.JSON
			for _, e := range out.Enum {
				if !containsJSON(n.Enum, e) {
					kept = append(kept, e)
				}
			}
			out.Enum = kept
		}
	}
	for r := range excluded {
		if slices.Contains(out.Required, r) {
			delete(excluded, r)
		}
	}
	return &out, excluded
}

// merge adds branch b's value constraints to s (a copy the caller owns).
func merge(s, b *apiextensionsv1.JSONSchemaProps) {
	for _, r := range b.Required {
		if !slices.Contains(s.Required, r) {
			s.Required = append(append([]string(nil), s.Required...), r)
		}
	}
	if len(b.Enum) > 0 {
		s.Enum = b.Enum
	}
	if b.Pattern != "" {
		s.Pattern = b.Pattern
	}
	if b.Format != "" {
		s.Format = b.Format
	}
	if b.Minimum != nil {
		s.Minimum, s.ExclusiveMinimum = b.Minimum, b.ExclusiveMinimum
	}
	if b.Maximum != nil {
		s.Maximum, s.ExclusiveMaximum = b.Maximum, b.ExclusiveMaximum
	}
	if b.MultipleOf != nil {
		s.MultipleOf = b.MultipleOf
	}
	for _, p := range []struct{ to, from **int64 }{
		{&s.MinLength, &b.MinLength}, {&s.MaxLength, &b.MaxLength}, {&s.MinItems, &b.MinItems},
		{&s.MaxItems, &b.MaxItems}, {&s.MinProperties, &b.MinProperties}, {&s.MaxProperties, &b.MaxProperties},
	} {
		if *p.from != nil {
			*p.to = *p.from
		}
	}
	if len(b.Properties) > 0 && len(s.Properties) > 0 {
		props := make(map[string]apiextensionsv1.JSONSchemaProps, len(s.Properties))
		for name, p := range s.Properties {
			if bp, ok := b.Properties[name]; ok {
				merge(&p, &bp)
			}
			props[name] = p
		}
		s.Properties = props
	}
	if b.Items != nil && b.Items.Schema != nil && s.Items != nil && s.Items.Schema != nil {
		items := *s.Items.Schema
		merge(&items, b.Items.Schema)
		s.Items = &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &items}
	}
}

func containsJSON(list []apiextensionsv1.JSON, v apiextensionsv1.JSON) bool {
	for _, x := range list {
		if string(x.Raw) == string(v.Raw) {
			return true
		}
	}
	return false
}
