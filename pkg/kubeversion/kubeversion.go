// Package kubeversion makes kubectl crd answer as a given Kubernetes
// version answers, with the mechanism kube-apiserver's --emulated-version
// uses: the process-wide component registry of k8s.io/apiserver, whose
// effective version the CEL environments (the libraries a new rule may
// use), the formats a schema may name and the feature gates at their
// defaults for that version (fields of built-in kinds, CRD features) all
// read.
package kubeversion

import (
	"fmt"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/util/version"
	apimachineryversion "k8s.io/apimachinery/pkg/version"
	"k8s.io/apiserver/pkg/util/compatibility"
	basecompatibility "k8s.io/component-base/compatibility"
	"k8s.io/component-base/featuregate"
	"k8s.io/klog/v2"
)

// effective is the kube component's effective version in the registry.
func effective() basecompatibility.MutableEffectiveVersion {
	ev := compatibility.DefaultComponentGlobalsRegistry.EffectiveVersionFor(basecompatibility.DefaultKubeComponent)
	// Registered by k8s.io/apiserver as a mutable one; anything else is a
	// change of that package this code must follow.
	return ev.(basecompatibility.MutableEffectiveVersion)
}

// Range returns the oldest and the newest version this build answers as:
// the server code's own range (its binary version, and the floor it can
// emulate back to).
func Range() (oldest, newest *version.Version) {
	ev := effective()
	newest = version.MajorMinor(ev.BinaryVersion().Major(), ev.BinaryVersion().Minor())
	// "1.34..1.37(default:1.37)": the floor is not exported otherwise.
	floor, _, _ := strings.Cut(ev.AllowedEmulationVersionRange(), "..")
	if oldest, _ = version.Parse(floor); oldest == nil {
		oldest = newest
	}
	return oldest, newest
}

// Current returns the version the server code's registry answers as (set
// by Use). Commands resolve the version once (factory.AnswerAs) and pass
// it down; only tests read it here.
func Current() *version.Version { return effective().EmulationVersion() }

// OrNewest is v, or the newest version this build answers as when v is
// nil (no version resolved: the default).
func OrNewest(v *version.Version) *version.Version {
	if v != nil {
		return v
	}
	_, newest := Range()
	return newest
}

// Parse reads a version as users write it: MAJOR.MINOR, with or without a
// leading v; a patch version (v1.34.2, as kubectl version prints it) is
// accepted and has no effect, as emulation knows minor versions only.
func Parse(s string) (*version.Version, error) {
	v, err := version.Parse(s)
	if err != nil || len(v.Components()) < 2 {
		return nil, fmt.Errorf("%q is not a Kubernetes version: want MAJOR.MINOR, such as 1.34", s)
	}
	return version.MajorMinor(v.Major(), v.Minor()), nil
}

// OutOfRangeError is the answer for a version this build cannot answer as.
type OutOfRangeError struct {
	Version, Oldest, Newest *version.Version
	// Cluster is set when the version is the cluster's, not asked for.
	Cluster bool
}

func (e *OutOfRangeError) Error() string {
	nearest := e.Oldest
	if e.Version.GreaterThan(e.Newest) {
		nearest = e.Newest
	}
	msg := fmt.Sprintf("kubectl crd answers as Kubernetes %s to %s do (what its kube-apiserver code can emulate), not as %s", e.Oldest, e.Newest, e.Version)
	if e.Cluster {
		msg = fmt.Sprintf("the cluster runs Kubernetes %s, and %s; pass --kubernetes-version %s for answers that are %s's at best", e.Version, msg, nearest, nearest)
	}
	return msg
}

// Use makes every answer of this process that of Kubernetes v, as
// kube-apiserver's --emulated-version=v and --min-compatibility-version
// do: minCompatibility (nil: the version before v, as a cluster running v
// has it) bounds what new CEL rules and schema formats may use. cluster
// says v is the cluster's (for the error). Call it before any answer is
// computed: the feature gates change with it. The registry is set once
// per version: asked again for the version it has (a language server
// making its environment again under the same setting), Use leaves it as
// it is, so that checks under way read one version throughout.
func Use(v, minCompatibility *version.Version, cluster bool) error {
	oldest, newest := Range()
	if v.LessThan(oldest) || v.GreaterThan(newest) {
		return &OutOfRangeError{Version: v, Oldest: oldest, Newest: newest, Cluster: cluster}
	}
	if minCompatibility == nil {
		minCompatibility = v.SubtractMinor(1)
	}
	if minCompatibility.GreaterThan(v) {
		minCompatibility = v
	}
	inUse.Lock()
	defer inUse.Unlock()
	if inUse.v != nil && inUse.v.EqualTo(v) && inUse.min.EqualTo(minCompatibility) {
		return nil
	}
	if err := set(v, minCompatibility); err != nil {
		return err
	}
	inUse.v, inUse.min = v, minCompatibility
	return nil
}

// inUse is the version and minimum compatibility version Use last set.
var inUse struct {
	sync.Mutex
	v, min *version.Version
}

// set sets the registry and the feature gates to v.
func set(v, minCompatibility *version.Version) error {
	ev := effective()
	ev.SetEmulationVersion(v)
	// A cluster of version v is compatible with v-1, below the floor a
	// newer binary emulating v may go (its own v-3): set after the
	// emulation version, as the registry's flags do.
	ev.SetMinCompatibilityVersion(minCompatibility)
	// The feature gates take their defaults at v. Online, the client that
	// read the cluster's version has already read client-go's gates (for
	// its transport) at the newest version; the server code logs each
	// such change as a warning. They are the client's, not the answer's:
	// keep the log for -v=2.
	gates := compatibility.DefaultComponentGlobalsRegistry.FeatureGateFor(basecompatibility.DefaultKubeComponent)
	if g, ok := gates.(featuregate.MutableVersionedFeatureGateWithLogger); ok {
		if err := g.SetEmulationVersionAndMinCompatibilityVersionWithLogger(klog.Background().V(2), v, minCompatibility); err != nil {
			return err
		}
	}
	// Set applies the effective version to every registered component.
	return compatibility.DefaultComponentGlobalsRegistry.Set()
}

// OfServer reads the version a cluster answers as from its /version: the
// version it emulates and its minimum compatibility version where it says
// (Kubernetes 1.33 and later), else its own.
func OfServer(info *apimachineryversion.Info) (v, minCompatibility *version.Version, err error) {
	major, minor := info.EmulationMajor, info.EmulationMinor
	if major == "" || minor == "" {
		major, minor = info.Major, info.Minor
	}
	// Minor versions of some distributions carry a "+".
	if v, err = Parse(major + "." + strings.TrimSuffix(minor, "+")); err != nil {
		return nil, nil, fmt.Errorf("the cluster's /version: %w", err)
	}
	if info.MinCompatibilityMajor != "" && info.MinCompatibilityMinor != "" {
		minCompatibility, _ = Parse(info.MinCompatibilityMajor + "." + info.MinCompatibilityMinor)
	}
	return v, minCompatibility, nil
}
