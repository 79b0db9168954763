package crdtest

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// patchError is a patch that does not apply: the case's input is wrong.
type patchError struct{ err error }

func (e *patchError) Error() string { return e.err.Error() }

// patched is crd with the patches applied (see patchedCRD), made once
// for the same patches of the same CRD (cases of a suite often share
// them).
func (r *Runner) patched(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, patches []Patch) (*apiextensionsv1.CustomResourceDefinition, error) {
	ops, err := json.Marshal(patches)
	if err != nil {
		return nil, &patchError{err}
	}
	return r.patchedCRDs.Get(variantKey(crd)+" "+string(ops), func() (*apiextensionsv1.CustomResourceDefinition, error) {
		return patchedCRD(ctx, crd, patches)
	})
}

// patchedValidator is the validator of a version of a patched CRD, built
// once per patched CRD.
func (r *Runner) patchedValidator(crd *apiextensionsv1.CustomResourceDefinition, version string) (*validate.Validator, error) {
	return r.patchedValidators.Get(fmt.Sprintf("%p/%s", crd, version), func() (*validate.Validator, error) {
		return newValidator(crd, version, r.Admission != nil)
	})
}

// patchedCRD applies the RFC 6902 operations to crd, and checks the
// result as the server checks an update of crd to it (the format's
// runner updates the CRD in the cluster).
func patchedCRD(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, patches []Patch) (*apiextensionsv1.CustomResourceDefinition, error) {
	doc, err := installable(crd)
	if err != nil {
		return nil, err
	}
	ops, err := json.Marshal(patches)
	if err != nil {
		return nil, &patchError{err}
	}
	patch, err := jsonpatch.DecodePatch(ops)
	if err != nil {
		return nil, &patchError{err}
	}
	patchedDoc, err := patch.Apply(doc)
	if err != nil {
		return nil, &patchError{fmt.Errorf("does not apply to %s: %w", crd.Name, err)}
	}
	if err := validate.CRD(ctx, patchedDoc, validate.Established(crd)).Err; err != nil {
		return nil, err
	}
	docs, err := manifest.Read(crd.Name+" (patched)", patchedDoc)
	if err != nil {
		return nil, err
	}
	patched, err := catalog.DecodeCRD(&docs[0])
	if err != nil {
		return nil, err
	}
	return patched.CustomResourceDefinition, nil
}
