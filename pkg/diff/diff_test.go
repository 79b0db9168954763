package diff

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// base is a CRD with a schema of every kind of field the checks look at.
func base() *apiextensionsv1.CustomResourceDefinition {
	set := "set"
	schema := func() *apiextensionsv1.CustomResourceValidation {
		return &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object",
			Properties: map[string]apiextensionsv1.JSONSchemaProps{
				"spec": {
					Type:         "object",
					Required:     []string{"replicas"},
					XValidations: apiextensionsv1.ValidationRules{{Rule: "self.replicas >= 0"}},
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"replicas": {Type: "integer", Minimum: new(0.0), Maximum: new(10.0), Default: &apiextensionsv1.JSON{Raw: []byte("1")}},
						"name":     {Type: "string", Pattern: "^[a-z]+$", MaxLength: new(int64(20))},
						"mode":     {Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"a"`)}, {Raw: []byte(`"b"`)}}},
						"kind":     {Type: "string"},
						"note":     {Type: "string", Nullable: true},
						"tags":     {Type: "array", XListType: &set, Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
						"labels":   {Type: "object", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
						"extra":    {Type: "object", XPreserveUnknownFields: new(true)},
					},
				},
			},
		}}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "things.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1", Served: true, Storage: true, Schema: schema()},
				{Name: "v2", Served: true, Schema: schema()},
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{StoredVersions: []string{"v1"}},
	}
}

// field changes one field of v1's spec schema.
func field(name string, change func(*apiextensionsv1.JSONSchemaProps)) func(_, n *apiextensionsv1.CustomResourceDefinition) {
	return func(_, n *apiextensionsv1.CustomResourceDefinition) {
		root := n.Spec.Versions[0].Schema.OpenAPIV3Schema
		s := root.Properties["spec"]
		f := s.Properties[name]
		change(&f)
		s.Properties[name] = f
		root.Properties["spec"] = s
	}
}

func specChange(change func(*apiextensionsv1.JSONSchemaProps)) func(_, n *apiextensionsv1.CustomResourceDefinition) {
	return func(_, n *apiextensionsv1.CustomResourceDefinition) {
		root := n.Spec.Versions[0].Schema.OpenAPIV3Schema
		s := root.Properties["spec"]
		change(&s)
		root.Properties["spec"] = s
	}
}

// TestEachCheck changes one thing at a time: the check for it fires, and
// no other.
func TestEachCheck(t *testing.T) {
	str := func(s string) *string { return &s }
	tests := map[string]func(o, n *apiextensionsv1.CustomResourceDefinition){
		"scope-changed": func(_, n *apiextensionsv1.CustomResourceDefinition) { n.Spec.Scope = apiextensionsv1.ClusterScoped },
		"kind-changed":  func(_, n *apiextensionsv1.CustomResourceDefinition) { n.Spec.Names.Kind = "Gadget" },
		"names-changed": func(_, n *apiextensionsv1.CustomResourceDefinition) { n.Spec.Names.ShortNames = []string{"th"} },
		"version-removed": func(_, n *apiextensionsv1.CustomResourceDefinition) {
			n.Spec.Versions = n.Spec.Versions[:1]
		},
		"version-unserved": func(_, n *apiextensionsv1.CustomResourceDefinition) { n.Spec.Versions[1].Served = false },
		"version-served":   func(o, _ *apiextensionsv1.CustomResourceDefinition) { o.Spec.Versions[1].Served = false },
		"version-added": func(_, n *apiextensionsv1.CustomResourceDefinition) {
			n.Spec.Versions = append(n.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v3", Served: true})
		},
		"version-deprecated": func(_, n *apiextensionsv1.CustomResourceDefinition) { n.Spec.Versions[1].Deprecated = true },
		"storage-moved": func(_, n *apiextensionsv1.CustomResourceDefinition) {
			n.Spec.Versions[0].Storage, n.Spec.Versions[1].Storage = false, true
		},
		"stored-version-removed": func(o, n *apiextensionsv1.CustomResourceDefinition) {
			o.Status.StoredVersions = []string{"v1", "v2"}
			n.Spec.Versions = n.Spec.Versions[:1]
		},
		"conversion-changed": func(_, n *apiextensionsv1.CustomResourceDefinition) {
			n.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{ClientConfig: &apiextensionsv1.WebhookClientConfig{URL: str("https://convert.example.com")}}}
		},
		"field-removed": specChange(func(s *apiextensionsv1.JSONSchemaProps) { delete(s.Properties, "kind") }),
		"field-added": specChange(func(s *apiextensionsv1.JSONSchemaProps) {
			s.Properties["size"] = apiextensionsv1.JSONSchemaProps{Type: "integer"}
		}),
		"type-changed":     field("kind", func(f *apiextensionsv1.JSONSchemaProps) { f.Type = "integer" }),
		"required-added":   specChange(func(s *apiextensionsv1.JSONSchemaProps) { s.Required = append(s.Required, "name") }),
		"required-removed": specChange(func(s *apiextensionsv1.JSONSchemaProps) { s.Required = nil }),
		"enum-value-removed": field("mode", func(f *apiextensionsv1.JSONSchemaProps) {
			f.Enum = f.Enum[:1]
		}),
		"enum-value-added": field("mode", func(f *apiextensionsv1.JSONSchemaProps) {
			f.Enum = append(f.Enum, apiextensionsv1.JSON{Raw: []byte(`"c"`)})
		}),
		"enum-added":      field("kind", func(f *apiextensionsv1.JSONSchemaProps) { f.Enum = []apiextensionsv1.JSON{{Raw: []byte(`"x"`)}} }),
		"enum-removed":    field("mode", func(f *apiextensionsv1.JSONSchemaProps) { f.Enum = nil }),
		"default-added":   field("kind", func(f *apiextensionsv1.JSONSchemaProps) { f.Default = &apiextensionsv1.JSON{Raw: []byte(`"x"`)} }),
		"default-changed": field("replicas", func(f *apiextensionsv1.JSONSchemaProps) { f.Default = &apiextensionsv1.JSON{Raw: []byte("2")} }),
		"default-removed": field("replicas", func(f *apiextensionsv1.JSONSchemaProps) { f.Default = nil }),
		"bound-tightened": field("replicas", func(f *apiextensionsv1.JSONSchemaProps) { f.Maximum = new(5.0) }),
		"bound-loosened":  field("name", func(f *apiextensionsv1.JSONSchemaProps) { f.MaxLength = nil }),
		"pattern-changed": field("name", func(f *apiextensionsv1.JSONSchemaProps) { f.Pattern = "^[a-z0-9]+$" }),
		"pattern-removed": field("name", func(f *apiextensionsv1.JSONSchemaProps) { f.Pattern = "" }),
		"nullable-removed": field("note", func(f *apiextensionsv1.JSONSchemaProps) {
			f.Nullable = false
		}),
		"nullable-added": field("kind", func(f *apiextensionsv1.JSONSchemaProps) { f.Nullable = true }),
		"preserve-unknown-fields-removed": field("extra", func(f *apiextensionsv1.JSONSchemaProps) {
			f.XPreserveUnknownFields = nil
		}),
		"preserve-unknown-fields-added": field("labels", func(f *apiextensionsv1.JSONSchemaProps) { f.XPreserveUnknownFields = new(true) }),
		"list-type-changed":             field("tags", func(f *apiextensionsv1.JSONSchemaProps) { f.XListType = str("atomic") }),
		"validation-rule-added": specChange(func(s *apiextensionsv1.JSONSchemaProps) {
			s.XValidations = append(s.XValidations, apiextensionsv1.ValidationRule{Rule: "self.replicas < 100"})
		}),
		"validation-rule-changed": specChange(func(s *apiextensionsv1.JSONSchemaProps) {
			s.XValidations = apiextensionsv1.ValidationRules{{Rule: "self.replicas > 0"}}
		}),
		"validation-rule-removed": specChange(func(s *apiextensionsv1.JSONSchemaProps) { s.XValidations = nil }),
		"unclassified":            field("name", func(f *apiextensionsv1.JSONSchemaProps) { f.Format = "hostname" }),
	}
	for check, change := range tests {
		old, new := base(), base()
		change(old, new)
		var got []string
		for _, c := range Compare(old, new) {
			got = append(got, c.Check)
		}
		if got = slices.Compact(got); len(got) != 1 || got[0] != check {
			t.Errorf("%s: checks %v fired", check, got)
		}
	}
	if changes := Compare(base(), base()); len(changes) != 0 {
		t.Errorf("no change: %v", changes)
	}
	// Every check but the object ones has a case here.
	for _, c := range Checks {
		if _, ok := tests[c.Name]; !ok && !slices.Contains([]string{"name-conflict", "object-refused", "field-pruned", "crd-added", "crd-removed"}, c.Name) {
			t.Errorf("check %s is not tested", c.Name)
		}
	}
}

func TestNameConflicts(t *testing.T) {
	other := base()
	other.Name, other.Spec.Names = "gadgets.example.com", apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList", ShortNames: []string{"gd"}}
	n := base()
	n.Spec.Names.ShortNames = []string{"gd", "th"}
	changes := NameConflicts(n, []*apiextensionsv1.CustomResourceDefinition{other, base()})
	if len(changes) != 1 || changes[0].Check != "name-conflict" || !strings.Contains(changes[0].Message, `"gd" is already gadgets.example.com's`) {
		t.Errorf("%+v", changes)
	}
}

// TestSeverities: --check overrides the default severity, and ignore drops
// the change.
func TestSeverities(t *testing.T) {
	changes := []Change{{Check: "field-added"}, {Check: "field-removed"}, {Check: "default-added"}}
	got, err := Judge(changes, []string{"field-added=ignore", "default-added=error"})
	if err != nil || len(got) != 2 || got[0].Severity != Error || got[1].Severity != Error || !Breaking(got) {
		t.Errorf("%+v, %v", got, err)
	}
	for _, bad := range []string{"field-added", "nosuch=error", "field-added=fatal"} {
		if _, err := Judge(nil, []string{bad}); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}

// TestRealUpgrades compares CRDs of real projects across the corpus's
// channels and API versions of one CRD: gateway-api's standard against its
// experimental channel, and controller-tools' v1beta1 CRD against its v1
// form (which keeps a default the v1beta1 one strips, as its description
// says). Every change's check is a known one with a message.
func TestRealUpgrades(t *testing.T) {
	corpus := filepath.Join("..", "..", "..", "shared", "corpus")
	pairs := []struct {
		old, new string
		want     string // the checks that fire, with counts
	}{
		{"gateway-api/crds/standard__gateway.networking.k8s.io_httproutes.yaml", "gateway-api/crds/experimental__gateway.networking.k8s.io_httproutes.yaml",
			"enum-value-added 4, field-added 10, pattern-changed 18, validation-rule-added 10, validation-rule-changed 4"},
		{"gateway-api/crds/standard__gateway.networking.k8s.io_gateways.yaml", "gateway-api/crds/experimental__gateway.networking.k8s.io_gateways.yaml", "field-added 2"},
		{"controller-tools/crds/gen__bar.example.com_foos.v1beta1.yaml", "controller-tools/crds/gen__bar.example.com_foos.yaml", "default-added 1"},
	}
	known := map[string]bool{}
	for _, c := range Checks {
		known[c.Name] = true
	}
	for _, p := range pairs {
		oldCRD, err := readOne(filepath.Join(corpus, p.old))
		if err != nil {
			t.Skipf("no corpus: %v", err)
		}
		newCRD, err := readOne(filepath.Join(corpus, p.new))
		if err != nil {
			t.Fatal(err)
		}
		counts := map[string]int{}
		for _, c := range Compare(oldCRD, newCRD) {
			if !known[c.Check] || c.Message == "" {
				t.Errorf("%s: %+v", p.old, c)
			}
			counts[c.Check]++
		}
		if got := summary(counts); got != p.want {
			t.Errorf("%s -> %s: %s, want %s", p.old, p.new, got, p.want)
		}
		if back := Compare(newCRD, oldCRD); len(back) == 0 {
			t.Errorf("%s -> %s: no change back", p.new, p.old)
		}
	}
}

func readOne(path string) (*apiextensionsv1.CustomResourceDefinition, error) {
	files, err := catalog.ReadFiles([]string{path}, nil, nil)
	if err != nil {
		return nil, err
	}
	crds, err := files.List(context.Background())
	if err != nil || len(crds) != 1 {
		return nil, fmt.Errorf("%s: %d CRDs, %v", path, len(crds), err)
	}
	return crds[0].CustomResourceDefinition, nil
}

func summary(counts map[string]int) string {
	var out []string
	for k, v := range counts {
		out = append(out, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// TestAddedAndRemoved: a new CRD that replaces nothing is reported as
// added (an info), an old one that nothing replaces as removed (an error
// unless --check says otherwise), at its place in the old file.
func TestAddedAndRemoved(t *testing.T) {
	ctx := context.Background()
	old := base()
	added := base()
	added.Name, added.Spec.Group = "things.other.example.com", "other.example.com"
	files, err := catalog.NewFiles([]*catalog.CRD{{CustomResourceDefinition: old, Origin: "old/things.yaml:3"}})
	if err != nil {
		t.Fatal(err)
	}
	u := &Upgrade{Olds: catalog.New(files, nil)}
	r, err := u.Report(ctx, catalog.InputCRD{CRD: &catalog.CRD{CustomResourceDefinition: added}, Doc: &manifest.Document{}})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 1 || r.Changes[0].Check != "crd-added" || r.Changes[0].Severity != Info || r.Summary.Breaking {
		t.Errorf("added: %+v", r)
	}
	r, err = u.Removed(&catalog.CRD{CustomResourceDefinition: old, Origin: "old/things.yaml:3"})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Changes) != 1 || r.Changes[0].Check != "crd-removed" || r.Changes[0].Severity != Error || !r.Summary.Breaking ||
		r.File != "old/things.yaml" || r.Changes[0].Line != 3 {
		t.Errorf("removed: %+v", r)
	}
	u.Checks = []string{"crd-removed=warning"}
	if r, err = u.Removed(&catalog.CRD{CustomResourceDefinition: old, Origin: "old/things.yaml:3"}); err != nil || r.Summary.Breaking {
		t.Errorf("removed at warning: %+v, %v", r, err)
	}
}

// TestChangesAsLintAndValidateWriteThem: a field is written as lint and
// validate write it (spec.name, not .spec.name); a bound a field gains
// or loses says so; a changed rule is shown word by word; text gives
// each change its place in the new file.
func TestChangesAsLintAndValidateWriteThem(t *testing.T) {
	old, new := base(), base()
	field("name", func(f *apiextensionsv1.JSONSchemaProps) { f.MaxLength = nil; f.MinLength = ptrTo(int64(1)) })(old, new)
	specChange(func(s *apiextensionsv1.JSONSchemaProps) {
		s.XValidations = apiextensionsv1.ValidationRules{{Rule: "self.replicas > 0"}}
	})(old, new)
	changes := Compare(old, new)
	var got []string
	for _, c := range changes {
		if c.Version == "v1" {
			got = append(got, c.Field+": "+c.Message)
		}
	}
	for _, want := range []string{
		"spec.name: maxLength removed (was 20)",
		"spec.name: minLength added: 1",
		"spec: rule changed: self.replicas [->=-]{+>+} 0; objects stored before it",
	} {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.HasPrefix(g, want) }) {
			t.Errorf("no change %q in:\n%s", want, strings.Join(got, "\n"))
		}
	}
	for i := range changes {
		changes[i].Line, changes[i].Column = 40+i, 7
	}
	var out strings.Builder
	if err := Write(&out, []Report{{CRD: "things.example.com", File: "crds/things.yaml", Changes: changes}}, "text", "v1"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "\n  crds/things.yaml:40:7: ") {
		t.Errorf("text without places:\n%s", out.String())
	}
}

func ptrTo[T any](v T) *T { return &v }
