package catalog

import (
	"context"
	"slices"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// FeatureSetAnnotation marks a CRD file generated for some of a
// project's feature sets: openshift/api ships one file of a CRD per
// feature set (Default, TechPreviewNoUpgrade, CustomNoUpgrade, ...),
// each with the fields its feature gates enable.
const FeatureSetAnnotation = "release.openshift.io/feature-set"

// releaseAnnotations are the annotations an outline keeps: the feature
// set and the cluster profiles (include.release.openshift.io/PROFILE)
// a file is for.
func releaseAnnotations(all map[string]string) map[string]string {
	var out map[string]string
	for k, v := range all {
		if k == FeatureSetAnnotation || strings.HasPrefix(k, "include.release.openshift.io/") {
			if out == nil {
				out = map[string]string{}
			}
			out[k] = v
		}
	}
	return out
}

// FeatureSets are the feature sets a CRD file is for (none: not marked).
func FeatureSets(crd *apiextensionsv1.CustomResourceDefinition) []string {
	v := crd.Annotations[FeatureSetAnnotation]
	if v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// variantOf tells whether two files of one CRD name are variants rather
// than one CRD defined twice: files for different feature sets (each
// marked, no feature set in both), or files for different API versions
// (no version served by both: openshift/api generates a manifest of a
// CRD per API version package).
func variantOf(a, b *apiextensionsv1.CustomResourceDefinition) bool {
	if !slices.ContainsFunc(ServedVersions(a), func(v string) bool { return slices.Contains(ServedVersions(b), v) }) {
		return true
	}
	sa, sb := FeatureSets(a), FeatureSets(b)
	if len(sa) == 0 || len(sb) == 0 {
		return false
	}
	for _, s := range sa {
		if slices.Contains(sb, s) && sameProfiles(a, b) {
			return false
		}
	}
	return true
}

// sameProfiles tells whether two files are for the same cluster profiles.
func sameProfiles(a, b *apiextensionsv1.CustomResourceDefinition) bool {
	return slices.Equal(Profiles(a), Profiles(b))
}

// Profiles are the cluster profiles a CRD file is for, sorted.
func Profiles(crd *apiextensionsv1.CustomResourceDefinition) []string {
	var out []string
	for k, v := range crd.Annotations {
		if p, ok := strings.CutPrefix(k, "include.release.openshift.io/"); ok && v == "true" {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Variants are the files of the CRD named name, one per feature set (or
// per API version), in the order read; nil when the source has one file
// of it (or none).
func (c *Catalog) Variants(ctx context.Context, name string) ([]*CRD, error) {
	if err := c.needSource(); err != nil {
		return nil, err
	}
	f, ok := c.source.(*Files)
	if !ok || len(f.variants[name]) == 0 {
		return nil, nil
	}
	out := []*CRD{}
	for _, fc := range append([]*fileCRD{f.byName[name]}, f.variants[name]...) {
		crd, err := fc.decoded()
		if err != nil {
			return nil, err
		}
		out = append(out, crd)
	}
	slices.SortStableFunc(out, func(a, b *CRD) int { return strings.Compare(a.Origin, b.Origin) })
	return out, nil
}

// preferVariant tells whether b, a variant of a, is the one the other
// verbs read: the Default feature set's (what a cluster runs unless told
// otherwise).
func preferVariant(a, b *apiextensionsv1.CustomResourceDefinition) bool {
	return !slices.Contains(FeatureSets(a), "Default") && slices.Contains(FeatureSets(b), "Default")
}
