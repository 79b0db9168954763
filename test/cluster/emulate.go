package cluster

import (
	"fmt"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apiserver/pkg/util/compatibility"
	basecompatibility "k8s.io/component-base/compatibility"
)

// emulate sets the process-wide component registry to Kubernetes
// emulated, as kube-apiserver's main does from --emulated-version and
// --min-compatibility-version. The test server keeps a registry of its own
// for its feature gates, but CEL environments and the formats CRD schemas
// may use read the process-wide one, so without this a server emulating
// 1.34 still accepts a rule that uses a 1.35 library. The minimum
// compatibility version is the one before, as on a cluster that runs
// that version. restore puts the registry back.
func emulate(emulated string) (restore func(), err error) {
	v, err := version.Parse(emulated)
	if err != nil {
		return nil, fmt.Errorf("emulated version %q: %w", emulated, err)
	}
	registry := compatibility.DefaultComponentGlobalsRegistry
	current := registry.EffectiveVersionFor(basecompatibility.DefaultKubeComponent)
	was, wasMin := current.EmulationVersion(), current.MinCompatibilityVersion()
	set := func(emulation, minCompatibility *version.Version) error {
		fs := pflag.NewFlagSet("kube-apiserver", pflag.ContinueOnError)
		registry.AddFlags(fs)
		if err := fs.Parse([]string{
			"--emulated-version=kube=" + emulation.String(),
			"--min-compatibility-version=kube=" + minCompatibility.String(),
		}); err != nil {
			return err
		}
		return registry.Set()
	}
	if err := set(v, v.SubtractMinor(1)); err != nil {
		return nil, fmt.Errorf("emulating Kubernetes %s: %w", emulated, err)
	}
	return func() { _ = set(was, wasMin) }, nil
}
