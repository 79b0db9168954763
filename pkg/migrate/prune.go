package migrate

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// prune sets storedVersions to the storage version alone, on the CRD as it
// was read before the migration: if it changed since, only when its
// versions and storage version did not.
func (m *Migrator) prune(ctx context.Context, before *apiextensionsv1.CustomResourceDefinition) ([]string, error) {
	storage, _ := apihelpers.GetCRDStorageVersion(before)
	crd := before.DeepCopy()
	for range attempts {
		if slices.Equal(crd.Status.StoredVersions, []string{storage}) {
			return crd.Status.StoredVersions, nil
		}
		crd.Status.StoredVersions = []string{storage}
		updated, err := m.CRDs.UpdateStatus(ctx, crd, metav1.UpdateOptions{})
		if err == nil {
			return updated.Status.StoredVersions, nil
		}
		if !apierrors.IsConflict(err) {
			return nil, err
		}
		if crd, err = m.CRDs.Get(ctx, before.Name, metav1.GetOptions{}); err != nil {
			return nil, err
		}
		now, _ := apihelpers.GetCRDStorageVersion(crd)
		if now != storage || !sameVersions(before, crd) {
			return nil, fmt.Errorf("%w (storage version %s, versions %v; now %s, %v): storedVersions is left as it was",
				ErrCRDChanged, storage, versionNames(before), now, versionNames(crd))
		}
	}
	return nil, fmt.Errorf("storedVersions could not be updated: the CustomResourceDefinition kept changing")
}

func sameVersions(a, b *apiextensionsv1.CustomResourceDefinition) bool {
	return slices.Equal(versionNames(a), versionNames(b))
}

func versionNames(crd *apiextensionsv1.CustomResourceDefinition) []string {
	var out []string
	for _, v := range crd.Spec.Versions {
		out = append(out, v.Name)
	}
	return out
}
