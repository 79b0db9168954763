package policytest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/kubectl-crd/kubectl-crd/pkg/crdtest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// comparePatched compares the object as the mutating policies of the Test
// leave it (all of them, in the server's order, with its reinvocation)
// with the result's patchedResources: the object as written, with the
// changes the policies made (their merge patch) applied, must be the
// file's object of the same kind and name. The server's defaults are not
// in it: a patched resource is written as its author wrote the object.
func (a *admissions) comparePatched(ctx context.Context, t *Test, res Result, obj object, c *crdtest.Result) {
	errored := func(err error) { c.Status, c.Message = crdtest.Errored, err.Error() }
	chain, err := a.chain(ctx, "mutating", func() *policies.Set {
		set := a.fx.set
		return &policies.Set{Mutating: set.Mutating, MutatingBindings: set.MutatingBindings, Params: set.Params, Namespaces: set.Namespaces}
	})
	if err != nil {
		errored(err)
		return
	}
	checked, err := a.check(ctx, obj, chain)
	if err != nil {
		errored(err)
		return
	}
	got := obj.doc.JSON
	if len(checked.Mutation) > 0 {
		if got, err = jsonpatch.MergePatch(obj.doc.JSON, checked.Mutation); err != nil {
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
