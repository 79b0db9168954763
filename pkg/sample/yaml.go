package sample

import (
	"bytes"
	"sort"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/explain"
	"go.yaml.in/yaml/v3"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// YAML renders a sample as YAML: apiVersion, kind and metadata first, as
// kubectl prints objects. With comments, each field has its description's
// first paragraph and its constraints (explain's) as comments above it.
// refused, when the server refuses the sample, is said in a comment at
// the top.
func YAML(obj map[string]any, root *apiextensionsv1.JSONSchemaProps, comments bool, refused []string) ([]byte, error) {
	n, err := node(obj, root, comments, true)
	if err != nil {
		return nil, err
	}
	if len(refused) > 0 {
		n.HeadComment = "The server refuses this object:\n" + strings.Join(refused, "\n")
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(n); err != nil {
		return nil, err
	}
	return b.Bytes(), enc.Close()
}

// node builds the YAML node of v, whose schema is s (nil where unknown).
func node(v any, s *apiextensionsv1.JSONSchemaProps, comments, root bool) (*yaml.Node, error) {
	switch v := v.(type) {
	case map[string]any:
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range keys(v, root) {
			child := childSchema(s, k, true)
			key := &yaml.Node{Kind: yaml.ScalarNode, Value: k}
			if comments && child != nil {
				key.HeadComment = comment(child)
			}
			val, err := node(v[k], child, comments, false)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, key, val)
		}
		return n, nil
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		item := childSchema(s, "", false)
		for _, x := range v {
			c, err := node(x, item, comments, false)
			if err != nil {
				return nil, err
			}
			n.Content = append(n.Content, c)
		}
		return n, nil
	}
	n := &yaml.Node{}
	return n, n.Encode(v)
}

// keys orders an object's keys: apiVersion, kind, metadata, spec at the top
// of an object, then by name.
func keys(m map[string]any, root bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	rank := func(k string) int {
		for i, first := range []string{"apiVersion", "kind", "metadata", "spec"} {
			if k == first && (root || i < 3) {
				return i
			}
		}
		return 4
	}
	sort.Slice(out, func(i, j int) bool {
		if ri, rj := rank(out[i]), rank(out[j]); ri != rj {
			return ri < rj
		}
		return out[i] < out[j]
	})
	return out
}

// childSchema is the schema of a property (or a map's values) of s, or of
// its items.
func childSchema(s *apiextensionsv1.JSONSchemaProps, name string, property bool) *apiextensionsv1.JSONSchemaProps {
	if s == nil {
		return nil
	}
	for _, c := range explain.Children(s) {
		switch {
		case property && c.Step == explain.Property && c.Name == name,
			property && c.Step == explain.Values,
			!property && c.Step == explain.Items:
			return c.Schema
		}
	}
	return nil
}

// comment is a field's description (its first paragraph, on one line) and
// its constraints, a line each.
func comment(s *apiextensionsv1.JSONSchemaProps) string {
	var lines []string
	if d, _, _ := strings.Cut(strings.TrimSpace(s.Description), "\n\n"); d != "" {
		lines = append(lines, strings.Join(strings.Fields(d), " "))
	}
	for _, c := range explain.Constraints(s) {
		for _, l := range c.Lines() {
			lines = append(lines, strings.Join(strings.Fields(l), " "))
		}
	}
	return strings.Join(lines, "\n")
}
