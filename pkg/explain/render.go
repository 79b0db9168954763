package explain

import (
	"fmt"
	"io"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// WriteConstraints writes the CONSTRAINTS section of -o detailed: for the
// node at path and its fields (all descendants when recursive), each one
// that has constraints.
func WriteConstraints(w io.Writer, root *apiextensionsv1.JSONSchemaProps, path []string, recursive bool) error {
	node, err := Field(root, path)
	if err != nil {
		return err
	}
	nodes := append([]Node{{Path: path, Schema: node}}, Walk(node, path, recursive)...)
	header := false
	for _, n := range nodes {
		cs := Constraints(n.Schema)
		if len(cs) == 0 {
			continue
		}
		if !header {
			fmt.Fprintf(w, "\nCONSTRAINTS:\n")
			header = true
		}
		name := strings.Join(n.Path, ".")
		if name == "" {
			name = "<root>"
		}
		fmt.Fprintf(w, "  %s:\n", name)
		for _, c := range cs {
			fmt.Fprintf(w, "    %s\n", c)
		}
	}
	return nil
}

// WriteMarkdown writes a reference page for a CRD version (from the field
// at path, the whole kind when path is empty): a heading per field with its
// type, whether it is required, its description and its constraints.
func WriteMarkdown(w io.Writer, crd *apiextensionsv1.CustomResourceDefinition, version string, path []string) error {
	root, err := Schema(crd, version)
	if err != nil {
		return err
	}
	node, err := Field(root, path)
	if err != nil {
		return err
	}
	title := crd.Spec.Names.Kind
	if len(path) > 0 {
		title += "." + strings.Join(path, ".")
	}
	fmt.Fprintf(w, "# %s\n\n", title)
	fmt.Fprintf(w, "- API version: `%s/%s`\n", crd.Spec.Group, version)
	fmt.Fprintf(w, "- Scope: %s\n", crd.Spec.Scope)
	fmt.Fprintf(w, "- Resource: `%s`", crd.Spec.Names.Plural)
	if len(crd.Spec.Names.ShortNames) > 0 {
		fmt.Fprintf(w, " (short names: `%s`)", strings.Join(crd.Spec.Names.ShortNames, "`, `"))
	}
	fmt.Fprintf(w, "\n")
	if node.Description != "" {
		fmt.Fprintf(w, "\n%s\n", node.Description)
	}
	writeConstraintList(w, node)
	for _, n := range Walk(node, path, true) {
		fmt.Fprintf(w, "\n%s `%s`\n\n", strings.Repeat("#", min(2+len(n.Path)-len(path)-1, 6)), strings.Join(n.Path, "."))
		fmt.Fprintf(w, "Type: `%s`", TypeName(n.Schema))
		if n.Required {
			fmt.Fprintf(w, ", required")
		}
		fmt.Fprintf(w, "\n")
		if n.Schema.Description != "" {
			fmt.Fprintf(w, "\n%s\n", n.Schema.Description)
		}
		writeConstraintList(w, n.Schema)
	}
	return nil
}

func writeConstraintList(w io.Writer, s *apiextensionsv1.JSONSchemaProps) {
	cs := Constraints(s)
	if len(cs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n")
	for _, c := range cs {
		if strings.HasPrefix(c, "  ") {
			fmt.Fprintf(w, "  - %s\n", strings.ReplaceAll(strings.TrimSpace(c), "`", "'"))
			continue
		}
		name, value, _ := strings.Cut(c, ": ")
		fmt.Fprintf(w, "- %s: `%s`\n", name, value)
	}
}
