package policytest

import (
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/kubectl-crd/kubectl-crd/pkg/crdtest"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// comparePatched compares the object as the mutating policies of the
// Test leave it (mutation: their merge patch, as the server applies them,
// in its order and with its reinvocation) with the result's
// patchedResources: the object as written, with mutation applied, must be
// the file's object of the same kind and name. The server's defaults are
// not in it: a patched resource is written as its author wrote the
// object.
func (a *admissions) comparePatched(t *Test, res Result, obj object, mutation []byte, c *crdtest.Result) {
	errored := func(err error) { c.Status, c.Message = crdtest.Errored, err.Error() }
	got := obj.doc.JSON
	if len(mutation) > 0 {
		var err error
		if got, err = jsonpatch.MergePatch(obj.doc.JSON, mutation); err != nil {
			errored(fmt.Errorf("applying the policies' changes: %w", err))
			return
		}
	}
	docs, err := a.r.read(t, res.patched())
	if err != nil {
		errored(err)
		return
	}
	var want []byte
	for i := range docs {
		if m := metaOf(&docs[i]); m.gvk.Kind == obj.kind && m.name == obj.name {
			want = docs[i].JSON
			break
		}
	}
	if want == nil {
		errored(fmt.Errorf("%s: no %s %s in the patched resources", resolve(t.File, res.patched()), obj.kind, obj.name))
		return
	}
	var gotObj, wantObj any
	if err := json.Unmarshal(got, &gotObj); err != nil {
		errored(err)
		return
	}
	if err := json.Unmarshal(want, &wantObj); err != nil {
		errored(err)
		return
	}
	if reflect.DeepEqual(gotObj, wantObj) {
		c.Status = crdtest.Passed
		return
	}
	c.Status, c.Message = crdtest.Failed, fmt.Sprintf("passed, but the object as the mutating policies leave it is not the patched resource of %s", resolve(t.File, res.patched()))
	c.Diff = crdtest.YAMLDiff(wantObj, gotObj, "patched resource", "mutated")
}
