// Package policytest runs Kyverno CLI Test files (cli.kyverno.io/v1alpha1
// Test, as "kyverno test" reads them) for ValidatingAdmissionPolicies and
// MutatingAdmissionPolicies, each expected result answered by the API
// server's own admission plugins through pkg/validate, as validate
// --policies answers the same files: the object goes through its kind's
// strategy and the policies as a create would on the server.
package policytest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	yaml "go.yaml.in/yaml/v3"
)

// Group is the API group of Kyverno's CLI files.
const Group = "cli.kyverno.io"

// Test is one Test document. Its fields may stand at the top level, as
// Kyverno's documentation writes them, or under spec.
type Test struct {
	Name string
	Spec
	// File and Line are where the document is; Err says why it cannot
	// run (nil: it can).
	File string
	Line int
	Err  error
	// doc is the document, for the places of its fields.
	doc *manifest.Document
	// under is "spec." when the fields are under spec.
	under string
}

// Spec is what a Test says: the files, relative to the Test's own, and
// the results expected.
type Spec struct {
	Policies       []string `json:"policies,omitempty"`
	Resources      []string `json:"resources,omitempty"`
	ParamResources []string `json:"paramResources,omitempty"`
	// Variables is a Values file (its namespaceSelector and namespaces
	// are read); Values the same inline.
	Variables string  `json:"variables,omitempty"`
	Values    *Values `json:"values,omitempty"`
	// UserInfo is a UserInfo file: who sends the requests.
	UserInfo string   `json:"userinfo,omitempty"`
	Results  []Result `json:"results,omitempty"`

	// Kyverno's own, for its policies: read so that a file that has
	// them runs, and said to be left alone.
	Exceptions       json.RawMessage `json:"exceptions,omitempty"`
	Checks           json.RawMessage `json:"checks,omitempty"`
	JSONPayload      json.RawMessage `json:"jsonPayload,omitempty"`
	JSONPayloads     json.RawMessage `json:"jsonPayloads,omitempty"`
	TargetResources  json.RawMessage `json:"targetResources,omitempty"`
	Context          json.RawMessage `json:"context,omitempty"`
	ClusterResources json.RawMessage `json:"clusterResources,omitempty"`
}

// Result is one expected result: of Policy on each resource named.
type Result struct {
	Policy string `json:"policy"`
	// Rule names a Kyverno policy's rule: such a result is Kyverno's.
	Rule                        string `json:"rule,omitempty"`
	IsValidatingAdmissionPolicy bool   `json:"isValidatingAdmissionPolicy,omitempty"`
	IsMutatingAdmissionPolicy   bool   `json:"isMutatingAdmissionPolicy,omitempty"`
	// Result is pass, fail or skip (Status is its older name).
	Result string `json:"result,omitempty"`
	Status string `json:"status,omitempty"`
	Kind   string `json:"kind"`
	// Resources name the objects, NAME or NAMESPACE/NAME (Resource is
	// one, the older form; Namespace its namespace).
	Resources []string `json:"resources,omitempty"`
	Resource  string   `json:"resource,omitempty"`
	Namespace string   `json:"namespace,omitempty"`
	// PatchedResource (or PatchedResources) is a file of the object as
	// the mutating policies leave it.
	PatchedResource  string `json:"patchedResource,omitempty"`
	PatchedResources string `json:"patchedResources,omitempty"`
	// Message, when given, is in the server's message for the result:
	// its denial, or what an admitted object is warned of.
	Message string `json:"message,omitempty"`
	// Kyverno's generate rules.
	GeneratedResource   string `json:"generatedResource,omitempty"`
	CloneSourceResource string `json:"cloneSourceResource,omitempty"`

	// Line is where the result is in its Test.
	Line int `json:"-"`
}

// expected is the result expected: pass, fail or skip (or what else the
// file says, which no answer equals).
func (r Result) expected() string {
	if r.Result != "" {
		return r.Result
	}
	return r.Status
}

// names are the resources the result is about.
func (r Result) names() []string {
	out := append([]string(nil), r.Resources...)
	if r.Resource != "" {
		out = append(out, r.Resource)
	}
	if r.Namespace != "" {
		for i, n := range out {
			if !strings.Contains(n, "/") {
				out[i] = r.Namespace + "/" + n
			}
		}
	}
	return out
}

// patched is the file of the object as the mutating policies leave it
// ("": none given).
func (r Result) patched() string {
	if r.PatchedResources != "" {
		return r.PatchedResources
	}
	return r.PatchedResource
}

// Values is what a Values file (or a Test's values) gives that concerns
// admission: namespaces, by name and labels or whole.
type Values struct {
	NamespaceSelectors []NamespaceSelector `json:"namespaceSelector,omitempty"`
	Namespaces         []json.RawMessage   `json:"namespaces,omitempty"`
	// Kyverno's own.
	GlobalValues json.RawMessage `json:"globalValues,omitempty"`
	Policies     json.RawMessage `json:"policies,omitempty"`
	Subresources json.RawMessage `json:"subresources,omitempty"`
	Variables    json.RawMessage `json:"variables,omitempty"`
}

// NamespaceSelector is a namespace's labels.
type NamespaceSelector struct {
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels"`
}

// RequestInfo is what a UserInfo file says of who sends the requests.
type RequestInfo struct {
	Roles        []string `json:"roles,omitempty"`
	ClusterRoles []string `json:"clusterRoles,omitempty"`
	UserInfo     struct {
		Username string              `json:"username,omitempty"`
		UID      string              `json:"uid,omitempty"`
		Groups   []string            `json:"groups,omitempty"`
		Extra    map[string][]string `json:"extra,omitempty"`
	} `json:"userInfo"`
}

// decodeTest reads a Test document. Its fields are matched as Kyverno's
// CLI matches them (encoding/json: a key's case is not significant); a
// key it does not know is an error at its line, as a misspelt result
// would otherwise pass unseen.
func decodeTest(d *manifest.Document) *Test {
	t := &Test{File: d.File, Line: d.Line, doc: d}
	var top struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Name string `json:"name"`
		Spec
		InSpec *Spec `json:"spec"`
	}
	if len(d.Warnings) > 0 {
		t.Err = d.Warnings[0]
		return t
	}
	if err := strictJSON(d.JSON, &top); err != nil {
		t.Err = placed(d, err)
		return t
	}
	t.Name = top.Metadata.Name
	if t.Name == "" {
		t.Name = top.Name
	}
	t.Spec = top.Spec
	if top.InSpec != nil {
		t.Spec, t.under = *top.InSpec, "spec."
	}
	for i := range t.Results {
		t.Results[i].Line, _ = d.Position(fmt.Sprintf("%sresults[%d]", t.under, i))
	}
	return t
}

// strictJSON decodes data into v, refusing keys v has no field for.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}

// placed is err at the field of d it names, where it names one.
func placed(d *manifest.Document, err error) error {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	line, column := d.Line, d.Column
	if field, ok := strings.CutPrefix(msg, "unknown field "); ok {
		name := strings.Trim(field, `"`)
		if l, c := findKey(d, name); l > 0 {
			line, column = l, c
		}
		msg = fmt.Sprintf("unknown field %s: not a field of Kyverno's Test", field)
	}
	return &manifest.Error{File: d.File, Line: line, Column: column, Msg: msg}
}

// findKey is the place of the first key named name in d, at any depth
// (encoding/json names an unknown key without its path).
func findKey(d *manifest.Document, name string) (int, int) {
	var line, column int
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || line > 0 {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Kind == yaml.MappingNode && strings.EqualFold(n.Content[i].Value, name) {
				line, column = n.Content[i].Line, n.Content[i].Column
				return
			}
		}
		for _, c := range n.Content {
			walk(c)
		}
	}
	walk(d.YAMLNode())
	return line, column
}
