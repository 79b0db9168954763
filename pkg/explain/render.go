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
			for _, l := range c.Lines() {
				fmt.Fprintf(w, "    %s\n", l)
			}
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
	if cs := Constraints(node); len(cs) > 0 {
		fmt.Fprintf(w, "\n%s", MarkdownConstraints(cs))
	}
	WriteMarkdownFields(w, node, path, 2)
	return nil
}

// WriteMarkdownFields writes a section per field under s (all
// descendants), the top ones at heading level, deeper ones one level down
// per step (at most 6).
func WriteMarkdownFields(w io.Writer, s *apiextensionsv1.JSONSchemaProps, path []string, level int) {
	for _, n := range Walk(s, path, true) {
		fmt.Fprintf(w, "\n%s `%s`\n\n", strings.Repeat("#", min(level+len(n.Path)-len(path)-1, 6)), strings.Join(n.Path, "."))
		fmt.Fprintf(w, "Type: `%s`", TypeName(n.Schema))
		if n.Required {
			fmt.Fprintf(w, ", required")
		}
		fmt.Fprintf(w, "\n")
		if n.Schema.Description != "" {
			fmt.Fprintf(w, "\n%s\n", n.Schema.Description)
		}
		if cs := Constraints(n.Schema); len(cs) > 0 {
			fmt.Fprintf(w, "\n%s", MarkdownConstraints(cs))
		}
	}
}

// MarkdownConstraints renders constraints as a Markdown list: a line each,
// the value as code, a rule's details on the lines below it.
func MarkdownConstraints(cs []Constraint) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "- %s: %s", c.Label(), Code(c.Value))
		if c.Exclusive {
			b.WriteString(" (exclusive)")
		}
		if c.Transition {
			b.WriteString(" (transition rule: checked on updates, against the old value)")
		}
		b.WriteString("\n")
		for _, d := range c.Details() {
			fmt.Fprintf(&b, "  - %s: %s\n", d.Name, Code(d.Value))
		}
	}
	return b.String()
}

// Code is s as a Markdown code span: fenced with one backtick more than
// the longest run in s, so that any value reads as written (a code span
// shows a line break as a space; a blank line would end it).
func Code(s string) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\n", "\n ")), " ")
	run, longest := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, " ") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
