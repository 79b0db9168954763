package tabletransport

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	sigsjson "sigs.k8s.io/json"

	"github.com/kubectl-crd/kubectl-crd/pkg/printers"
)

// batch is how many items one goroutine converts at a time.
const batch = 64

// convertList turns a list response into the Table JSON the server would
// send; ok is false when data is not a list (an object, or not JSON). The
// items are decoded one after the other, as the server's JSON decoder
// decodes them (case-sensitive keys, integers kept), and each batch of
// them is converted to rows and encoded on another core while the next is
// decoded; rows keep the list's order.
func convertList(ctx context.Context, data []byte, conv *printers.Convertor, opts *metav1.TableOptions) (out []byte, ok bool, err error) {
	dec := sigsjson.NewDecoderCaseSensitivePreserveInts(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false, nil
	}
	var meta metav1.ListMeta
	type part struct {
		rows []byte // the batch's rows, encoded and comma-separated
		err  error
	}
	var parts []*part // in the list's order; each filled by its goroutine
	var wg sync.WaitGroup
	workers := make(chan struct{}, runtime.GOMAXPROCS(0))
	convert := func(items []unstructured.Unstructured) {
		p := &part{}
		parts = append(parts, p)
		workers <- struct{}{}
		wg.Go(func() {
			defer func() { <-workers }()
			p.rows, p.err = convertItems(ctx, items, conv, opts)
		})
	}
	isList := false
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		switch key {
		case "metadata":
			err = dec.Decode(&meta)
		case "items":
			if isList, err = decodeItems(dec, convert); !isList {
				wg.Wait()
				return nil, false, nil
			}
		default:
			var skip json.RawMessage
			err = dec.Decode(&skip)
		}
		if err != nil {
			wg.Wait()
			return nil, false, nil // the caller's decoder says what is wrong
		}
	}
	wg.Wait()
	if !isList {
		return nil, false, nil
	}
	table, err := conv.Table(ctx, &unstructured.UnstructuredList{}, opts)
	if err != nil {
		return nil, true, err
	}
	table.ResourceVersion = meta.ResourceVersion
	table.Continue = meta.Continue
	table.RemainingItemCount = meta.RemainingItemCount
	chunks := make([][]byte, 0, len(parts))
	for _, p := range parts {
		if p.err != nil {
			return nil, true, p.err
		}
		chunks = append(chunks, p.rows)
	}
	out, err = joinRows(table, chunks)
	return out, true, err
}

// joinRows encodes a Table without rows and puts the encoded rows in its
// rows array, which is the last field of the Table's JSON.
func joinRows(table *metav1.Table, rows [][]byte) ([]byte, error) {
	table.Rows = nil
	head, err := json.Marshal(table)
	if err != nil {
		return nil, err
	}
	const noRows = `"rows":null}`
	if !bytes.HasSuffix(head, []byte(noRows)) {
		return nil, fmt.Errorf("a Table encodes with fields after its rows: %.80s", head[max(0, len(head)-80):])
	}
	out := append(head[:len(head)-len(noRows)], `"rows":[`...)
	first := true
	for _, r := range rows {
		if len(r) == 0 {
			continue
		}
		if !first {
			out = append(out, ',')
		}
		out, first = append(out, r...), false
	}
	return append(out, "]}"...), nil
}

// decodeItems decodes a list's items and hands each batch of them to
// convert; false when the value is not an array (null).
func decodeItems(dec sigsjson.Decoder, convert func([]unstructured.Unstructured)) (bool, error) {
	t, err := dec.Token()
	if err != nil || t != json.Delim('[') {
		return false, err
	}
	items := make([]unstructured.Unstructured, 0, batch)
	for dec.More() {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			return true, err
		}
		if obj == nil {
			return true, fmt.Errorf("a list item is not an object")
		}
		items = append(items, unstructured.Unstructured{Object: obj})
		if len(items) == batch {
			convert(items)
			items = make([]unstructured.Unstructured, 0, batch)
		}
	}
	if len(items) > 0 {
		convert(items)
	}
	_, err = dec.Token() // ']'
	return true, err
}

// convertItems converts items to Table rows and encodes them, comma
// separated, as they appear in the Table's rows array.
func convertItems(ctx context.Context, items []unstructured.Unstructured, conv *printers.Convertor, opts *metav1.TableOptions) ([]byte, error) {
	table, err := conv.Table(ctx, &unstructured.UnstructuredList{Items: items}, opts)
	if err != nil {
		return nil, err
	}
	rows, err := encodeRows(table.Rows)
	if err != nil {
		return nil, err
	}
	return rows[1 : len(rows)-1], nil // without the array's brackets
}
