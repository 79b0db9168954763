package validate

import (
	"context"
	"regexp"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	sigsjson "sigs.k8s.io/json"
)

var (
	crdScheme  = runtime.NewScheme()
	crdDecoder runtime.Decoder
	crdCreate  rest.RESTCreateStrategy
)

func init() {
	apiextensionsinstall.Install(crdScheme)
	crdDecoder = serializer.NewCodecFactory(crdScheme).UniversalDecoder()
	crdCreate = customresourcedefinition.NewStrategy(crdScheme)
}

// unknownField is how strict decoding names a field the type lacks.
var unknownField = regexp.MustCompile(`^unknown field "(.*)"$`)

// CRD checks a CustomResourceDefinition document as the server checks a
// create of it: unknown fields (strict decoding), then the defaulted object
// through the server's own CRD strategy (structural schema rules, CEL
// compilation and cost budget, printer column JSONPaths, selectable
// fields, names).
func CRD(ctx context.Context, doc []byte) Result {
	var res Result
	// The version's own Go type knows every field the server accepts.
	var probe struct {
		APIVersion string `json:"apiVersion"`
	}
	_ = sigsjson.UnmarshalCaseSensitivePreserveInts(doc, &probe)
	typed, _, err := crdDecoder.Decode(doc, nil, nil)
	if err != nil {
		res.Err = err
		return res
	}
	if obj, err := crdScheme.New(schema.FromAPIVersionAndKind(probe.APIVersion, "CustomResourceDefinition")); err == nil {
		strict, _ := sigsjson.UnmarshalStrict(doc, obj)
		for _, e := range strict {
			if m := unknownField.FindStringSubmatch(e.Error()); m != nil {
				res.Unknown = append(res.Unknown, m[1])
			}
		}
	}
	crd := typed.(*apiextensions.CustomResourceDefinition)
	rest.FillObjectMetaSystemFields(crd)
	res.Err = rest.BeforeCreate(crdCreate, quiet(genericapirequest.WithNamespace(ctx, "")), crd)
	return res
}
