package validate

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/builtin"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// decodeBody does to a custom resource's request body what the server's
// decoder does before the strategy sees it (apiextensions-apiserver's
// schema-coercing decoder, composed here from the same exported steps in
// the same order): metadata decoded strictly into ObjectMeta (its unknown
// fields reported, a field of the wrong type refused), unknown fields
// pruned, non-nullable nulls dropped, the metadata of embedded resources
// coerced, and metadata written back as ObjectMeta holds it; then the
// schema's defaults. It returns the paths of the unknown fields, which
// strict field validation refuses, and the server's 400 for a body it
// cannot decode.
func decodeBody(obj map[string]any, s *structuralschema.Structural, preserveUnknownFields bool) (unknown []string, err error) {
	u := &unstructured.Unstructured{Object: obj}
	kind, apiVersion := u.GetKind(), u.GetAPIVersion()
	meta, hasMeta, metaUnknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{ReturnUnknownFieldPaths: true})
	if err != nil {
		return nil, cannotDecode(kind, apiVersion, metadataField("metadata", obj["metadata"], err), err)
	}
	unknown = append(unknown, metaUnknown...)
	if s != nil {
		if !preserveUnknownFields {
			unknown = append(unknown, structuralpruning.PruneWithOptions(obj, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})...)
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s)
		}
		ferr, embedded := schemaobjectmeta.CoerceWithOptions(nil, obj, s, false, schemaobjectmeta.CoerceOptions{ReturnUnknownFieldPaths: true})
		if ferr != nil {
			return nil, cannotDecode(kind, apiVersion, metadataField(ferr.Field, ferr.BadValue, errors.New(ferr.Detail)), ferr)
		}
		unknown = append(unknown, embedded...)
	}
	u.SetKind(kind)
	u.SetAPIVersion(apiVersion)
	if hasMeta {
		if err := schemaobjectmeta.SetObjectMeta(obj, meta); err != nil {
			return nil, cannotDecode(kind, apiVersion, "metadata", err)
		}
	}
	if s != nil {
		structuraldefaulting.Default(obj, s)
	}
	return unknown, nil
}

// metadataField is the path of the value in metadata (at path) that err,
// a decoding error of ObjectMeta, is about; path itself when err does not
// say.
func metadataField(path string, metadata any, err error) string {
	body, merr := json.Marshal(metadata)
	if merr != nil {
		return path
	}
	if f := builtin.TypeErrorField(err.Error(), body); f != "" {
		return path + "." + f
	}
	return path
}

// cannotDecode is the server's answer to a body its decoder refuses (the
// create and update handlers' wording), with the field it is about.
func cannotDecode(kind, apiVersion, field string, err error) error {
	version := apiVersion
	if gv, perr := schema.ParseGroupVersion(apiVersion); perr == nil {
		version = gv.Version
	}
	return &builtin.DecodeError{Field: field, Err: apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", kind, version, kind, err))}
}
