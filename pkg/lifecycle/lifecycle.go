// Package lifecycle describes a CRD's versions over time: which are
// served, which one is stored, what status.storedVersions holds, how
// objects convert between versions and whether a migration is due. list
// prints its rows; diff, docs and lsp spell versions and the conversion
// with it, so that every verb says them the same way.
package lifecycle

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Version is one version of a CRD, as a row shows it.
type Version struct {
	Name       string `json:"name"`
	Served     bool   `json:"served"`
	Storage    bool   `json:"storage"`
	Deprecated bool   `json:"deprecated"`
}

// VersionOf is the row's view of a CRD version.
func VersionOf(v *apiextensionsv1.CustomResourceDefinitionVersion) Version {
	return Version{Name: v.Name, Served: v.Served, Storage: v.Storage, Deprecated: v.Deprecated}
}

// Notes are what sets a version apart, always in this order: storage,
// deprecated, not served.
func (v Version) Notes() []string {
	var notes []string
	if v.Storage {
		notes = append(notes, "storage")
	}
	if v.Deprecated {
		notes = append(notes, "deprecated")
	}
	if !v.Served {
		notes = append(notes, "not served")
	}
	return notes
}

// String is the version's name with its notes: "v1beta1 (deprecated)".
func (v Version) String() string {
	if notes := v.Notes(); len(notes) > 0 {
		return v.Name + " (" + strings.Join(notes, ", ") + ")"
	}
	return v.Name
}

// Cell is the version in list's compact column: * for the storage
// version, (deprecated) after a deprecated one, parentheses around one
// not served.
func (v Version) Cell() string {
	s := v.Name
	if v.Storage {
		s += "*"
	}
	if v.Deprecated {
		s += "(deprecated)"
	}
	if !v.Served {
		s = "(" + s + ")"
	}
	return s
}

// Versions are a CRD's versions in its order.
func Versions(crd *apiextensionsv1.CustomResourceDefinition) []Version {
	out := make([]Version, len(crd.Spec.Versions))
	for i := range crd.Spec.Versions {
		out[i] = VersionOf(&crd.Spec.Versions[i])
	}
	return out
}

// Conversion is how a CRD's objects are converted between its versions.
type Conversion struct {
	// Strategy is "None" or "Webhook".
	Strategy string `json:"strategy"`
	// Service ("namespace/name") or URL is where the webhook answers;
	// both empty for None, or for a webhook without a client config.
	Service string `json:"service,omitempty"`
	URL     string `json:"url,omitempty"`
}

// ConversionOf reads a CRD's conversion (None when it says none).
func ConversionOf(crd *apiextensionsv1.CustomResourceDefinition) Conversion {
	c := crd.Spec.Conversion
	if c == nil || c.Strategy != apiextensionsv1.WebhookConverter {
		return Conversion{Strategy: string(apiextensionsv1.NoneConverter)}
	}
	out := Conversion{Strategy: string(apiextensionsv1.WebhookConverter)}
	if c.Webhook != nil && c.Webhook.ClientConfig != nil {
		cc := c.Webhook.ClientConfig
		switch {
		case cc.Service != nil:
			out.Service = cc.Service.Namespace + "/" + cc.Service.Name
		case cc.URL != nil:
			out.URL = *cc.URL
		}
	}
	return out
}

// None tells whether objects are converted by changing their apiVersion
// alone.
func (c Conversion) None() bool { return c.Strategy == string(apiextensionsv1.NoneConverter) }

// String is "None", "Webhook (service NAMESPACE/NAME)", "Webhook (URL)"
// or "Webhook".
func (c Conversion) String() string {
	switch {
	case c.Service != "":
		return fmt.Sprintf("%s (service %s)", c.Strategy, c.Service)
	case c.URL != "":
		return fmt.Sprintf("%s (%s)", c.Strategy, c.URL)
	}
	return c.Strategy
}

// Meaning says in a sentence what the strategy does to an object read at
// another version than the one it is stored at.
func (c Conversion) Meaning() string {
	if c.None() {
		return "an object stored at one version is read at another as it is, with its apiVersion changed"
	}
	return "the CRD's conversion webhook converts objects between versions"
}

// MigrationNeeded tells whether objects may be stored at a version other
// than the storage version: storedVersions holds another one.
func MigrationNeeded(crd *apiextensionsv1.CustomResourceDefinition) bool {
	storage, err := apihelpers.GetCRDStorageVersion(crd)
	if err != nil {
		return false
	}
	return slices.ContainsFunc(crd.Status.StoredVersions, func(v string) bool { return v != storage })
}

// Unhealthy lists the CRD's conditions that are not as they should be
// (NonStructuralSchema present, Established or NamesAccepted not true, a
// terminating CRD), as TYPE=STATUS.
func Unhealthy(crd *apiextensionsv1.CustomResourceDefinition) []string {
	out := []string{}
	for _, c := range crd.Status.Conditions {
		var bad bool
		switch c.Type {
		case apiextensionsv1.NonStructuralSchema, apiextensionsv1.Terminating:
			bad = c.Status == apiextensionsv1.ConditionTrue
		case apiextensionsv1.KubernetesAPIApprovalPolicyConformant:
			bad = c.Status == apiextensionsv1.ConditionFalse
		default: // Established, NamesAccepted
			bad = c.Status != apiextensionsv1.ConditionTrue
		}
		if bad {
			out = append(out, fmt.Sprintf("%s=%s", c.Type, c.Status))
		}
	}
	return out
}
