package builtin

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FuzzCheck: arbitrary documents of kube-apiserver's own kinds, checked as
// creates and as updates of one another: kube-apiserver's code panics on
// what kubectl crd hands it only where the server's does, and each check
// ends in a verdict.
func FuzzCheck(f *testing.F) {
	for _, name := range []string{"creates.yaml", "live.yaml", "updates.yaml"} {
		data, err := os.ReadFile("../../test/testdata/builtin/" + name)
		if err != nil {
			f.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---\n") {
			f.Add([]byte(doc), []byte(doc))
		}
	}
	kinds, err := New(nil, nil, nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data, liveData []byte) {
		docs := manifest.ReadLenient("object.yaml", data)
		lives := manifest.ReadLenient("live.yaml", liveData)
		for i := range docs {
			d := &docs[i]
			if d.Err != nil {
				continue
			}
			obj := &unstructured.Unstructured{}
			if obj.UnmarshalJSON(d.JSON) != nil {
				continue
			}
			kind, _ := kinds.Lookup(obj.GroupVersionKind())
			if kind == nil {
				continue
			}
			ctx := context.Background()
			check(t, kind.Create(ctx, d.JSON, "", true, nil))
			for j := range lives {
				if lives[j].Err == nil {
					check(t, kind.Update(ctx, d.JSON, lives[j].JSON, true, false, nil))
				}
			}
		}
	})
}

// check fails on a panic of the server's code where the server would not
// panic. Where it does (applying kubectl apply's patch, an internal error
// of the server too: test/e2e's differential test holds it), the check is
// the server's answer.
func check(t *testing.T, res Result) {
	t.Helper()
	var panicked *PanicError
	if errors.As(res.Err, &panicked) {
		t.Fatalf("%v\n%s", panicked, panicked.Stack)
	}
}
