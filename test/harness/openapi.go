package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
)

// ServerDocument fetches an OpenAPI document from the server
// (/openapi/v2 or /openapi/v3/apis/GROUP/VERSION) as generic JSON.
func ServerDocument(config *rest.Config, path string) (any, error) {
	c := rest.CopyConfig(config)
	c.GroupVersion = &schema.GroupVersion{}
	c.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	client, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, err
	}
	data, err := client.Get().AbsPath(path).SetHeader("Accept", "application/json").Do(context.Background()).Raw()
	if err != nil {
		return nil, err
	}
	var doc any
	return doc, json.Unmarshal(data, &doc)
}

// EventuallyEqualJSON compares want (generic JSON from fetch) with got,
// fetching again for up to 20 s while they differ: the server publishes
// OpenAPI documents a moment after CRDs change.
func EventuallyEqualJSON(t testing.TB, what string, got any, fetch func() (any, error)) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		want, err := fetch()
		if err == nil {
			if diff := FirstDifference("", got, want); diff == "" {
				return
			} else if time.Now().After(deadline) {
				t.Errorf("%s differs from the server's: %s", what, diff)
				return
			}
		} else if time.Now().After(deadline) {
			t.Errorf("%s: fetching the server's: %v", what, err)
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// FirstDifference describes the first place two generic JSON values
// differ, or returns "" when they are equal.
func FirstDifference(path string, a, b any) string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: object vs %T", path, b)
		}
		keys := map[string]bool{}
		for k := range av {
			keys[k] = true
		}
		for k := range bv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			x, inA := av[k]
			y, inB := bv[k]
			switch {
			case !inA:
				return fmt.Sprintf("%s/%s: missing (server has it)", path, k)
			case !inB:
				return fmt.Sprintf("%s/%s: extra (server lacks it)", path, k)
			}
			if d := FirstDifference(path+"/"+k, x, y); d != "" {
				return d
			}
		}
		return ""
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
		for i := range av {
			if d := FirstDifference(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i]); d != "" {
				return d
			}
		}
		return ""
	default:
		if !reflect.DeepEqual(a, b) {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
		return ""
	}
}

// Subset returns the entries of server's map at key (paths or
// definitions) that ours has, for comparing our part of /openapi/v2.
func Subset(ours, server any, key string) any {
	o, _ := ours.(map[string]any)[key].(map[string]any)
	s, _ := server.(map[string]any)[key].(map[string]any)
	sub := map[string]any{}
	for k := range o {
		if v, ok := s[k]; ok {
			sub[k] = v
		}
	}
	return sub
}
