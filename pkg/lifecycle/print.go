package lifecycle

import (
	"io"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	kubectlget "k8s.io/kubectl/pkg/cmd/get"
)

// Print writes rows with one of kubectl's printers, made for format: a
// table, names, or the rows as objects, one by one for custom-columns,
// else as a List.
func Print(w io.Writer, printer printers.ResourcePrinter, format string, rows []Row) error {
	objects := make([]*unstructured.Unstructured, len(rows))
	for i, r := range rows {
		var err error
		if objects[i], err = r.Object(); err != nil {
			return err
		}
	}
	switch {
	case format == "" || format == "wide":
		return printer.PrintObj(Table(rows, objects), w)
	case format == "name":
		for _, r := range rows {
			name := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: r.Name}}
			name.SetGroupVersionKind(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
			if err := printer.PrintObj(name, w); err != nil {
				return err
			}
		}
		return nil
	case strings.HasPrefix(format, "custom-columns"):
		for _, obj := range objects {
			if err := printer.PrintObj(obj, w); err != nil {
				return err
			}
		}
		return nil
	}
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": "v1", "kind": "List", "metadata": map[string]any{}}}
	for _, obj := range objects {
		list.Items = append(list.Items, *obj)
	}
	return printer.PrintObj(list, w)
}

// SortBy sorts rows as kubectl's --sort-by sorts objects, by a JSONPath
// into each row's object ("": as they are).
func SortBy(rows []Row, sortBy string) ([]Row, error) {
	if sortBy == "" {
		return rows, nil
	}
	items := make([]runtime.Object, len(rows))
	for i, r := range rows {
		obj, err := r.Object()
		if err != nil {
			return nil, err
		}
		items[i] = obj
	}
	sorter := kubectlget.NewRuntimeSorter(items, sortBy)
	if err := sorter.Sort(); err != nil {
		return nil, err
	}
	sorted := make([]Row, len(rows))
	for i := range rows {
		sorted[i] = rows[sorter.OriginalPosition(i)]
	}
	return sorted, nil
}
