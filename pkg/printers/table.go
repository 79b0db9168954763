// Package printers turns custom resources into the metav1.Table the API
// server would send for them, on the client: the CRD's printer columns go
// through the server's own Table convertor, and the result is served to
// kubectl's get code in place of the server's answer.
package printers

import (
	"context"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource/tableconvertor"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/registry/rest"
)

// Columns returns the printer columns the server uses for a CRD version:
// the version's additionalPrinterColumns, or the default Age column when it
// has none.
func Columns(crd *apiextensionsv1.CustomResourceDefinition, version string) ([]apiextensionsv1.CustomResourceColumnDefinition, error) {
	internal := &apiextensions.CustomResourceDefinition{}
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd, internal, nil); err != nil {
		return nil, err
	}
	cols, err := apiextensions.GetColumnsForVersion(internal, version)
	if err != nil {
		return nil, err
	}
	out := make([]apiextensionsv1.CustomResourceColumnDefinition, len(cols))
	for i := range cols {
		if err := apiextensionsv1.Convert_apiextensions_CustomResourceColumnDefinition_To_v1_CustomResourceColumnDefinition(&cols[i], &out[i], nil); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Convertor builds Tables for one CRD version.
type Convertor struct {
	table rest.TableConvertor
}

// NewConvertor makes the Table convertor the server uses for a CRD version.
func NewConvertor(crd *apiextensionsv1.CustomResourceDefinition, version string) (*Convertor, error) {
	cols, err := Columns(crd, version)
	if err != nil {
		return nil, err
	}
	tc, err := tableconvertor.New(cols)
	if err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition %s version %s: %w", crd.Name, version, err)
	}
	return &Convertor{table: tc}, nil
}

// Table converts an object or a list to the Table the server sends for it,
// with each row's object as the server includes it: its metadata only
// (includeObject Metadata, the default), the whole object (Object) or
// nothing (None).
func (c *Convertor) Table(ctx context.Context, obj runtime.Object, opts *metav1.TableOptions) (*metav1.Table, error) {
	table, err := c.table.ConvertToTable(ctx, obj, opts)
	if err != nil {
		return nil, err
	}
	table.TypeMeta = metav1.TypeMeta{Kind: "Table", APIVersion: metav1.SchemeGroupVersion.String()}
	for i := range table.Rows {
		row := &table.Rows[i]
		switch opts.IncludeObject {
		case metav1.IncludeObject:
		case metav1.IncludeMetadata, "":
			m, err := meta.Accessor(row.Object.Object)
			if err != nil {
				return nil, err
			}
			partial := meta.AsPartialObjectMetadata(m)
			partial.GetObjectKind().SetGroupVersionKind(metav1.SchemeGroupVersion.WithKind("PartialObjectMetadata"))
			row.Object.Object = partial
		case metav1.IncludeNone:
			row.Object.Object = nil
		default:
			return nil, fmt.Errorf("unrecognized includeObject value: %q", opts.IncludeObject)
		}
	}
	return table, nil
}
