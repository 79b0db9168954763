package tabletransport

import (
	"context"
	"encoding/json"
	"runtime"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"github.com/kubectl-crd/kubectl-crd/pkg/printers"
)

// rawList is a response with a list's items left undecoded (Items is nil
// when the response is a single object).
type rawList struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        metav1.ListMeta   `json:"metadata"`
	Items           []json.RawMessage `json:"items"`
}

// convertList turns a list response into the Table JSON the server would
// send. Items are decoded and converted in as many parts as there are
// CPUs; rows keep the list's order.
func convertList(ctx context.Context, list *rawList, conv *printers.Convertor, opts *metav1.TableOptions) ([]byte, error) {
	parts := min(runtime.GOMAXPROCS(0), max(1, len(list.Items)/64))
	tables := make([]*metav1.Table, parts)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		lo, hi := p*len(list.Items)/parts, (p+1)*len(list.Items)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			tables[p], errs[p] = convertItems(ctx, list.Items[lo:hi], conv, opts)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	table := tables[0]
	for _, t := range tables[1:] {
		table.Rows = append(table.Rows, t.Rows...)
	}
	table.ResourceVersion = list.Metadata.ResourceVersion
	table.Continue = list.Metadata.Continue
	table.RemainingItemCount = list.Metadata.RemainingItemCount
	return json.Marshal(table)
}

// convertItems decodes raw items and converts them to Table rows, with
// each row's object already encoded.
func convertItems(ctx context.Context, items []json.RawMessage, conv *printers.Convertor, opts *metav1.TableOptions) (*metav1.Table, error) {
	list := &unstructured.UnstructuredList{Items: make([]unstructured.Unstructured, len(items))}
	for i, raw := range items {
		obj := map[string]any{}
		if err := utiljson.Unmarshal(raw, &obj); err != nil {
			return nil, err
		}
		list.Items[i].Object = obj
	}
	table, err := conv.Table(ctx, list, opts)
	if err != nil {
		return nil, err
	}
	for i := range table.Rows {
		row := &table.Rows[i]
		if row.Object.Object == nil {
			continue
		}
		if row.Object.Raw, err = json.Marshal(row.Object.Object); err != nil {
			return nil, err
		}
	}
	return table, nil
}
