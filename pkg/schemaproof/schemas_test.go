package schemaproof_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The schemas below vary what the server's schema validation varies on:
// types and formats, every numeric, string, array and object keyword,
// the junctors, nullable, int-or-string, preserve-unknown-fields,
// embedded resources and list types, with bounds at and beyond their
// type's range. Each is kept only when the server accepts the CRD.

// bounds are numbers a minimum, maximum or multipleOf may be: in and out
// of int32's, int64's and float32's ranges, and fractions.
var bounds = []float64{0, 1, -1, 2, 3, 10, 0.5, 2.5, 10.5, 0.1, 1e-3, 100,
	math.MaxInt32, math.MaxInt32 + 1, math.MinInt32, math.MinInt32 - 1, math.MaxUint32,
	-9223372036854775808, 9223372036854775807, 1 << 53, 1<<53 + 2, 1e19, -1e19,
	math.MaxFloat32, 3.4028235677973366e38, math.MaxFloat64, -math.MaxFloat64, 1e300, 5e-324}

var (
	integerFormats = []string{"", "int32", "int64", "uint32", "float"}
	numberFormats  = []string{"", "float", "double", "float32", "int32"}
	stringFormats  = []string{"", "date-time", "date", "uuid", "byte", "email", "hostname", "ipv4", "ipv6", "cidr", "mac", "duration", "uri", "k8s-short-name", "k8s-long-name", "not-a-format"}
	patterns       = []string{`^[a-z]+$`, `^a`, `\d`, `^.{2,4}$`, `^$`, `[`}
	enumStrings    = []string{"a", "b", "", "IMPORTANT!", "0"}
)

// gen makes schemas and values from a stream of choices.
type gen struct {
	c choices
	// props counts the properties made, so that names differ.
	props int
}

func (g *gen) pick(n int) int     { return g.c.next() % n }
func (g *gen) chance(in int) bool { return g.pick(in) == 0 }

func (g *gen) bound() *float64 {
	b := bounds[g.pick(len(bounds))]
	if g.chance(4) {
		b = -b
	}
	return &b
}

func ptr[T any](v T) *T { return &v }

// schema is a random schema of depth at most depth: below it, leaves
// only (a choice that nests there would let a run of the same choices
// nest without end, and one call of the fuzz target take seconds).
func (g *gen) schema(depth int) apiextensionsv1.JSONSchemaProps {
	leaves := []func() apiextensionsv1.JSONSchemaProps{
		g.integer, g.number, g.string,
		func() apiextensionsv1.JSONSchemaProps { return apiextensionsv1.JSONSchemaProps{Type: "boolean"} },
		g.intOrString,
		// an integer's bounds on a number
		func() apiextensionsv1.JSONSchemaProps { s := g.integer(); s.Type = "number"; return s },
	}
	n := len(leaves)
	if depth > 0 {
		n += 2
	}
	var s apiextensionsv1.JSONSchemaProps
	switch i := g.pick(n); {
	case i < len(leaves):
		s = leaves[i]()
	case i == len(leaves):
		s = g.array(depth)
	default:
		s = g.object(depth)
	}
	if g.chance(5) {
		s.Nullable = true
	}
	return s
}

func (g *gen) integer() apiextensionsv1.JSONSchemaProps {
	s := apiextensionsv1.JSONSchemaProps{Type: "integer", Format: integerFormats[g.pick(len(integerFormats))]}
	g.numeric(&s)
	if g.chance(6) {
		s.Enum = []apiextensionsv1.JSON{{Raw: []byte("1")}, {Raw: []byte("2")}}
	}
	return s
}

func (g *gen) number() apiextensionsv1.JSONSchemaProps {
	s := apiextensionsv1.JSONSchemaProps{Type: "number", Format: numberFormats[g.pick(len(numberFormats))]}
	g.numeric(&s)
	return s
}

// numeric gives s its value validations, and sometimes a junctor of
// more.
func (g *gen) numeric(s *apiextensionsv1.JSONSchemaProps) {
	if g.chance(2) {
		s.Minimum, s.ExclusiveMinimum = g.bound(), g.chance(3)
	}
	if g.chance(2) {
		s.Maximum, s.ExclusiveMaximum = g.bound(), g.chance(3)
	}
	if g.chance(3) {
		s.MultipleOf = ptr(math.Abs(*g.bound()))
	}
	if g.chance(5) {
		s.AllOf = append(s.AllOf, g.numericBranch())
	}
	if g.chance(5) {
		s.AnyOf = []apiextensionsv1.JSONSchemaProps{g.numericBranch(), g.numericBranch()}
	}
	if g.chance(5) {
		s.OneOf = []apiextensionsv1.JSONSchemaProps{g.numericBranch(), g.numericBranch()}
	}
	if g.chance(7) {
		s.Not = ptr(g.numericBranch())
	}
}

func (g *gen) numericBranch() apiextensionsv1.JSONSchemaProps {
	var b apiextensionsv1.JSONSchemaProps
	switch g.pick(3) {
	case 0:
		b.Minimum, b.ExclusiveMinimum = g.bound(), g.chance(2)
	case 1:
		b.Maximum, b.ExclusiveMaximum = g.bound(), g.chance(2)
	default:
		b.MultipleOf = ptr(math.Abs(*g.bound()))
	}
	return b
}

func (g *gen) string() apiextensionsv1.JSONSchemaProps {
	s := apiextensionsv1.JSONSchemaProps{Type: "string"}
	s.Format = stringFormats[g.pick(len(stringFormats))]
	if g.chance(3) {
		s.MinLength = ptr(int64(g.pick(4)))
	}
	if g.chance(3) {
		s.MaxLength = ptr(int64(g.pick(6)))
	}
	if g.chance(4) {
		s.Pattern = patterns[g.pick(len(patterns))]
	}
	if g.chance(4) {
		for range 1 + g.pick(3) {
			js, _ := json.Marshal(enumStrings[g.pick(len(enumStrings))])
			s.Enum = append(s.Enum, apiextensionsv1.JSON{Raw: js})
		}
	}
	if g.chance(6) {
		s.OneOf = []apiextensionsv1.JSONSchemaProps{{MaxLength: ptr(int64(2))}, {Pattern: patterns[g.pick(len(patterns))]}}
	}
	if g.chance(6) {
		s.AnyOf = []apiextensionsv1.JSONSchemaProps{{MinLength: ptr(int64(3))}, {Format: stringFormats[g.pick(len(stringFormats))]}}
	}
	if g.chance(8) {
		s.Not = &apiextensionsv1.JSONSchemaProps{MaxLength: ptr(int64(g.pick(3)))}
	}
	return s
}

func (g *gen) intOrString() apiextensionsv1.JSONSchemaProps {
	s := apiextensionsv1.JSONSchemaProps{XIntOrString: true}
	if g.chance(2) {
		integer := apiextensionsv1.JSONSchemaProps{Type: "integer"}
		if g.chance(2) {
			integer.Minimum = g.bound()
		}
		if g.chance(2) {
			integer.Maximum = g.bound()
		}
		str := apiextensionsv1.JSONSchemaProps{Type: "string"}
		if g.chance(2) {
			str.Pattern = patterns[g.pick(len(patterns))]
		}
		s.AnyOf = []apiextensionsv1.JSONSchemaProps{integer, str}
	}
	return s
}

func (g *gen) array(depth int) apiextensionsv1.JSONSchemaProps {
	items := g.schema(depth - 1)
	s := apiextensionsv1.JSONSchemaProps{Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &items}}
	if g.chance(3) {
		s.MinItems = ptr(int64(g.pick(3)))
	}
	if g.chance(3) {
		s.MaxItems = ptr(int64(g.pick(4)))
	}
	switch g.pick(4) {
	case 0:
		s.XListType = ptr("atomic")
	case 1:
		if items.Type != "object" && items.Type != "array" {
			s.XListType = ptr("set")
		}
	}
	return s
}

func (g *gen) name() string {
	g.props++
	return fmt.Sprintf("p%d", g.props)
}

func (g *gen) object(depth int) apiextensionsv1.JSONSchemaProps {
	s := apiextensionsv1.JSONSchemaProps{Type: "object"}
	switch g.pick(5) {
	case 0:
		ap := g.schema(depth - 1)
		s.AdditionalProperties = &apiextensionsv1.JSONSchemaPropsOrBool{Allows: true, Schema: &ap}
	case 1:
		s.XPreserveUnknownFields = ptr(true)
		if g.chance(2) {
			s.XEmbeddedResource = true
		}
	default:
		s.Properties = map[string]apiextensionsv1.JSONSchemaProps{}
		var names []string
		for range 1 + g.pick(3) {
			n := g.name()
			names = append(names, n)
			s.Properties[n] = g.schema(depth - 1)
		}
		if g.chance(2) {
			s.Required = []string{names[g.pick(len(names))]}
		}
		if g.chance(5) {
			s.OneOf = []apiextensionsv1.JSONSchemaProps{{Required: []string{names[0]}}, {Required: []string{names[len(names)-1]}}}
		}
		if g.chance(5) {
			s.AnyOf = []apiextensionsv1.JSONSchemaProps{{Required: []string{names[0]}}, {MinProperties: ptr(int64(2))}}
		}
		if g.chance(6) {
			s.Not = &apiextensionsv1.JSONSchemaProps{Required: []string{names[0]}}
		}
	}
	if g.chance(4) {
		s.MinProperties = ptr(int64(g.pick(3)))
	}
	if g.chance(4) {
		s.MaxProperties = ptr(int64(g.pick(4)))
	}
	return s
}

// crd is a CRD whose spec has a random schema; sometimes a property at
// the root too, named IMPORTANT!x, with oneOfs.
func (g *gen) crd() *apiextensionsv1.CustomResourceDefinition {
	spec := g.schema(3)
	root := apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"apiVersion": {Type: "string"}, "kind": {Type: "string"}, "metadata": {Type: "object"}, "spec": spec,
	}}
	if g.chance(6) {
		// Errors under it start with its name; a failing oneOf schema's
		// errors that start with "IMPORTANT!" are kept.
		important := g.schema(1)
		switch g.pick(3) {
		case 0:
			important = apiextensionsv1.JSONSchemaProps{Type: "string", OneOf: []apiextensionsv1.JSONSchemaProps{{MaxLength: ptr(int64(5))}, {Pattern: "^a"}}}
		case 1:
			important = apiextensionsv1.JSONSchemaProps{Type: "integer", OneOf: []apiextensionsv1.JSONSchemaProps{{Maximum: ptr(5.0)}, {Minimum: ptr(3.0)}}}
		}
		root.Properties["IMPORTANT!x"] = important
		if g.chance(2) {
			root.OneOf = []apiextensionsv1.JSONSchemaProps{{Required: []string{"spec"}}, {Required: []string{"IMPORTANT!x"}}}
		}
	}
	return g.crdWith(root)
}

// crdWith is the CRD of the gens of that schema.
func (g *gen) crdWith(root apiextensionsv1.JSONSchemaProps) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "gens.proof.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "proof.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gens", Singular: "gen", Kind: "Gen", ListKind: "GenList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &root}}},
		},
	}
	return crd
}

// accepted tells whether the server accepts crd as a new CRD.
func accepted(crd *apiextensionsv1.CustomResourceDefinition) bool {
	v1 := crd.DeepCopy()
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1)
	internal := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, internal, nil); err != nil {
		return false
	}
	return len(crdvalidation.ValidateCustomResourceDefinition(context.Background(), internal)) == 0
}

// value is a value for s: mostly of its type, at the edges of its
// bounds, lengths and counts; sometimes of another type, or null.
func (g *gen) value(s *apiextensionsv1.JSONSchemaProps, depth int) any {
	if depth > 6 {
		return nil
	}
	switch g.pick(12) {
	case 0:
		return nil
	case 1:
		return g.anyValue()
	}
	t := s.Type
	if s.XIntOrString {
		t = []string{"integer", "string"}[g.pick(2)]
	}
	switch t {
	case "integer", "number":
		return g.numberFor(s)
	case "string":
		return g.stringFor(s)
	case "boolean":
		return g.chance(2)
	case "array":
		n := g.pick(5)
		if s.MinItems != nil && g.chance(2) {
			n = int(*s.MinItems) + g.pick(3) - 1
		}
		out := make([]any, 0, max(n, 0))
		for range max(n, 0) {
			out = append(out, g.value(s.Items.Schema, depth+1))
		}
		return out
	case "object":
		out := map[string]any{}
		for name, p := range s.Properties {
			if !g.chance(4) {
				out[name] = g.value(&p, depth+1)
			}
		}
		if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
			for range g.pick(3) {
				out[g.name()] = g.value(s.AdditionalProperties.Schema, depth+1)
			}
		}
		if g.chance(5) {
			out["extra"] = g.anyValue()
		}
		if s.XEmbeddedResource && g.chance(2) {
			out["apiVersion"], out["kind"] = "v1", "ConfigMap"
		}
		return out
	}
	return g.anyValue()
}

func (g *gen) numberFor(s *apiextensionsv1.JSONSchemaProps) any {
	var edges []float64
	for _, b := range []*float64{s.Minimum, s.Maximum, s.MultipleOf} {
		if b != nil {
			edges = append(edges, *b, *b+1, *b-1, *b*2, *b+0.5)
		}
	}
	edges = append(edges, 0, 1, -1, 3, math.MaxInt32, math.MaxInt32+1, math.MinInt32-1, 1<<53, 1e19, 2.5, math.MaxFloat32, 3.5e38, 1e308)
	f := edges[g.pick(len(edges))]
	switch {
	case g.chance(3):
		return f // as a float, integral or not
	case f >= math.MinInt64 && f < math.MaxInt64:
		return int64(f)
	}
	return f
}

func (g *gen) stringFor(s *apiextensionsv1.JSONSchemaProps) any {
	var options []string
	for _, e := range s.Enum {
		var str string
		if json.Unmarshal(e.Raw, &str) == nil {
			options = append(options, str)
		}
	}
	options = append(options, "", "a", "ab", "abc", "abcdef", "x1", "7", "IMPORTANT!",
		"2026-11-29T08:00:00Z", "2026-11-29", "6f1c2b1e-7c1a-4c1e-9d1e-1c2b3d4e5f60", "aGVsbG8=", "a@b.example", "example.com",
		"10.0.0.1", "::1", "10.0.0.0/8", "01:23:45:67:89:ab", "1h2m", "https://example.com/x", "é", "ab\u00e9")
	return options[g.pick(len(options))]
}

func (g *gen) anyValue() any {
	switch g.pick(7) {
	case 0:
		return "x"
	case 1:
		return int64(g.pick(5)) - 2
	case 2:
		return 1.5
	case 3:
		return true
	case 4:
		return map[string]any{}
	case 5:
		return []any{}
	}
	return nil
}

// instance is an object of the CRD's kind.
func (g *gen) instance(crd *apiextensionsv1.CustomResourceDefinition) map[string]any {
	root := crd.Spec.Versions[0].Schema.OpenAPIV3Schema
	spec := root.Properties["spec"]
	obj := map[string]any{"apiVersion": "proof.example.com/v1", "kind": "Gen", "metadata": map[string]any{"name": "x"}}
	if !g.chance(8) {
		obj["spec"] = g.value(&spec, 0)
	}
	if imp, ok := root.Properties["IMPORTANT!x"]; ok && !g.chance(3) {
		obj["IMPORTANT!x"] = g.value(&imp, 0)
	}
	return obj
}

// checkSchemas checks values of each of n random CRDs accepted by the
// server with the proof and the server's validator; it returns how many
// CRDs were made and accepted.
func checkSchemas(t testing.TB, c choices, n, values int, tl *tally) (made, kept int) {
	for range n {
		g := &gen{c: c}
		crd := g.crd()
		made++
		if !accepted(crd) {
			continue
		}
		v, err := build(crd, "v1")
		if err != nil || v == nil {
			continue
		}
		kept++
		where := schemaJSON(crd)
		for range values {
			tl.check(t, v, where, g.instance(crd))
		}
	}
	return made, kept
}

func schemaJSON(crd *apiextensionsv1.CustomResourceDefinition) string {
	js, _ := json.Marshal(crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
	return strings.TrimSpace(string(js))
}

// TestProofIsSoundOverSchemas: over random schemas the server accepts
// (KUBECTL_CRD_PROOF_SCHEMAS of them, 2,000 unless set; seeded by
// KUBECTL_CRD_PROOF_SEED), values at their edges: wherever the proof
// holds, the server's schema validation finds nothing. Both answers must
// occur often, or the test proves little.
func TestProofIsSoundOverSchemas(t *testing.T) {
	n, seed := envInt(t, "KUBECTL_CRD_PROOF_SCHEMAS", 2000), envInt(t, "KUBECTL_CRD_PROOF_SEED", 0)
	var tl tally
	made, kept := checkSchemas(t, randChoices{rand.New(rand.NewPCG(uint64(seed), 74))}, n, 20, &tl)
	t.Logf("seed %d: %d schemas made, %d accepted by the server; %d values, %d clean by the server, %d proven, %d invalid",
		seed, made, kept, tl.checked, tl.serverClean, tl.proven, tl.serverInvalid)
	if kept < made/3 || tl.serverClean < tl.checked/10 || tl.serverInvalid < tl.checked/10 || tl.proven < tl.serverClean/4 {
		t.Errorf("the generated cases prove little: %d of %d schemas accepted, %d of %d values clean, %d proven, %d invalid",
			kept, made, tl.serverClean, tl.checked, tl.proven, tl.serverInvalid)
	}
}

// FuzzProofOverSchemas: the fuzzer's bytes choose the schema and the
// values both.
func FuzzProofOverSchemas(f *testing.F) {
	for i := range 16 {
		f.Add([]byte{byte(i), byte(i * 7), byte(i * 13), 1, 2, 3, 4, 5, 6, 7, 8, 9, byte(i * 31)})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c := byteChoices(data)
		var tl tally
		checkSchemas(t, &c, 1, 4, &tl)
	})
}
