package crdtest

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FeatureGates are what each feature set enables and disables, per
// cluster profile: the FeatureGate objects openshift/api keeps in
// payload-manifests/featuregates, one per cluster profile and feature
// set. They decide which file of a CRD generated per feature set a suite
// with featureGates runs against.
type FeatureGates []featureGateSet

type featureGateSet struct {
	featureSet string
	profiles   []string
	// gates: true enabled, false disabled.
	gates map[string]bool
	place string
}

// ReadFeatureGates reads the FeatureGate objects (config.openshift.io)
// of paths; documents of other kinds are an error, as is a path with
// none.
func ReadFeatureGates(paths []string, src manifest.Sources) (FeatureGates, error) {
	docs, err := manifest.ReadPaths(paths, true, src)
	if err != nil {
		return nil, err
	}
	var out FeatureGates
	for i := range docs {
		d := &docs[i]
		tm := d.TypeMeta()
		if tm.Kind != "FeatureGate" || !strings.HasPrefix(tm.APIVersion, "config.openshift.io/") {
			return nil, &manifest.Error{File: d.File, Line: d.Line, Msg: fmt.Sprintf("not a FeatureGate of config.openshift.io: %s %s", tm.APIVersion, tm.Kind)}
		}
		obj, err := d.TakeObject()
		if err != nil {
			return nil, err
		}
		u := unstructured.Unstructured{Object: obj}
		set := featureGateSet{featureSet: u.GetAnnotations()[catalog.FeatureSetAnnotation], gates: map[string]bool{},
			place: fmt.Sprintf("%s:%d", d.File, d.Line)}
		for k, v := range u.GetAnnotations() {
			if p, ok := strings.CutPrefix(k, "include.release.openshift.io/"); ok && v == "true" {
				set.profiles = append(set.profiles, p)
			}
		}
		// The first entry is the release's own (the others, older
		// versions'), as the format's runner reads it.
		versions, _, _ := unstructured.NestedSlice(u.Object, "status", "featureGates")
		if len(versions) > 0 {
			first, _ := versions[0].(map[string]any)
			for _, state := range []string{"enabled", "disabled"} {
				on := state == "enabled"
				list, _, _ := unstructured.NestedSlice(first, state)
				for _, g := range list {
					if name, _, _ := unstructured.NestedString(g.(map[string]any), "name"); name != "" {
						set.gates[name] = on
					}
				}
			}
		}
		if set.featureSet == "" {
			set.featureSet = "Default"
		}
		out = append(out, set)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no FeatureGate in %s", strings.Join(paths, ", "))
	}
	return out, nil
}

// statusFor is what feature set name enables and disables for a file of
// the cluster profiles given (nil: not known).
func (g FeatureGates) statusFor(name string, profiles []string) map[string]bool {
	for _, s := range g {
		if s.featureSet != name {
			continue
		}
		if len(profiles) == 0 || slices.ContainsFunc(s.profiles, func(p string) bool { return slices.Contains(profiles, p) }) {
			return s.gates
		}
	}
	return nil
}

// featureSetOrder is the order in which files that fit a suite are
// preferred: the narrowest feature set first, CustomNoUpgrade (every
// gated field) last.
var featureSetOrder = []string{"Default", "TechPreviewNoUpgrade", "DevPreviewNoUpgrade", "OKD"}

func featureSetRank(crd *catalog.CRD) int {
	sets := catalog.FeatureSets(crd.CustomResourceDefinition)
	best := len(featureSetOrder)
	for _, s := range sets {
		if i := slices.Index(featureSetOrder, s); i >= 0 && i < best {
			best = i
		}
	}
	if slices.Contains(sets, "CustomNoUpgrade") && best == len(featureSetOrder) {
		best++
	}
	return best
}

// chooseVariant picks, of the files of one CRD generated per feature
// set, the one a suite's feature gates call for, as openshift/api's
// runner decides which files a suite runs against: a suite without
// gates runs against the Default feature set's; a suite with gates
// against a file whose feature set enables each gate it names and
// disables each it names with a leading "-" (CustomNoUpgrade has every
// gated field, so it fits any suite that needs no gate disabled). Of the
// files that fit, the narrowest feature set's is taken.
func chooseVariant(s *Suite, variants []*catalog.CRD, gates FeatureGates) (*catalog.CRD, error) {
	variants, err := servingSuite(s, variants)
	if err != nil {
		return nil, err
	}
	if len(variants) == 1 {
		return variants[0], nil
	}
	ordered := slices.SortedStableFunc(slices.Values(variants), func(a, b *catalog.CRD) int {
		return cmp.Compare(featureSetRank(a), featureSetRank(b))
	})
	var why []string
	for _, v := range ordered {
		sets := catalog.FeatureSets(v.CustomResourceDefinition)
		if len(s.FeatureGates) == 0 {
			if slices.Contains(sets, "Default") || len(sets) == 0 {
				return v, nil
			}
			why = append(why, fmt.Sprintf("%s is for %s", v.Origin, strings.Join(sets, ",")))
			continue
		}
		reason, fits := variantFits(s.FeatureGates, v, gates)
		if fits {
			return v, nil
		}
		why = append(why, reason)
	}
	if len(s.FeatureGates) == 0 {
		return nil, fmt.Errorf("crdName %s: the suite names no feature gates, so it runs against the Default feature set's file, and none is: %s", s.CRDName, strings.Join(why, "; "))
	}
	msg := fmt.Sprintf("crdName %s: no file of it fits featureGates %s: %s", s.CRDName, strings.Join(s.FeatureGates, ", "), strings.Join(why, "; "))
	if len(gates) == 0 {
		msg += " (which feature set enables which gate is read from FeatureGate objects: give openshift/api's payload-manifests/featuregates with --feature-gates)"
	}
	return nil, fmt.Errorf("%s", msg)
}

// servingSuite are the files of a CRD that serve the version a suite
// runs at: its version, else its cases' objects' (openshift/api's runner
// pairs each suite with the manifest of its own API version). A suite
// that names neither keeps every file; one that no file serves is an
// error naming what each serves.
func servingSuite(s *Suite, variants []*catalog.CRD) ([]*catalog.CRD, error) {
	version := s.Version
	if version == "" {
		version = s.objectsVersion()
	}
	if version == "" {
		return variants, nil
	}
	var out []*catalog.CRD
	var serve []string
	for _, v := range variants {
		served := catalog.ServedVersions(v.CustomResourceDefinition)
		if slices.Contains(served, version) {
			out = append(out, v)
		}
		serve = append(serve, fmt.Sprintf("%s serves %s", v.Origin, strings.Join(served, ", ")))
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("crdName %s: no file of it serves %s, the suite's version: %s", s.CRDName, version, strings.Join(serve, "; "))
	}
	return out, nil
}

// variantFits tells whether the file v has what a suite with wanted
// gates needs, or why not.
func variantFits(wanted []string, v *catalog.CRD, gates FeatureGates) (string, bool) {
	sets := catalog.FeatureSets(v.CustomResourceDefinition)
	disables := slices.ContainsFunc(wanted, func(g string) bool { return strings.HasPrefix(g, "-") })
	if slices.Contains(sets, "CustomNoUpgrade") {
		if disables {
			return fmt.Sprintf("%s is CustomNoUpgrade's (every gate enabled), and the suite needs a gate disabled", v.Origin), false
		}
		return "", true
	}
	profiles := catalog.Profiles(v.CustomResourceDefinition)
	var why []string
	for _, set := range sets {
		status := gates.statusFor(set, profiles)
		if status == nil {
			why = append(why, fmt.Sprintf("no FeatureGate says what %s enables", set))
			continue
		}
		fits := true
		for _, g := range wanted {
			name, off := strings.CutPrefix(g, "-")
			on, known := status[name]
			if !known || on == off {
				fits = false
				state := "enabled"
				if !known {
					state = "unknown"
				} else if !on {
					state = "disabled"
				}
				why = append(why, fmt.Sprintf("%s has %s %s", set, name, state))
				break
			}
		}
		if fits {
			return "", true
		}
	}
	return fmt.Sprintf("%s (%s): %s", v.Origin, strings.Join(sets, ","), strings.Join(why, ", ")), false
}
