package migrate

import (
	"fmt"
	"slices"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// Summary is a CRD's versions over time, as kubectl crd list shows it:
// its name, group, kind and scope, the versions and which is stored, what
// status.storedVersions says, the conversion, the objects (nil: unknown),
// whether a migration is due, its short names, categories and unhealthy
// conditions. metadata holds the CRD's name, labels and creation time,
// for kubectl's printers.
func Summary(crd *apiextensionsv1.CustomResourceDefinition, objects *int64) map[string]any {
	var versions []any
	for _, v := range crd.Spec.Versions {
		versions = append(versions, map[string]any{"name": v.Name, "served": v.Served, "storage": v.Storage, "deprecated": v.Deprecated})
	}
	var count any
	if objects != nil {
		count = *objects
	}
	meta := map[string]any{"name": crd.Name}
	if len(crd.Labels) > 0 {
		labels := map[string]any{}
		for k, v := range crd.Labels {
			labels[k] = v
		}
		meta["labels"] = labels
	}
	if !crd.CreationTimestamp.IsZero() {
		meta["creationTimestamp"] = crd.CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z")
	}
	return map[string]any{
		"metadata":        meta,
		"name":            crd.Name,
		"group":           crd.Spec.Group,
		"kind":            crd.Spec.Names.Kind,
		"scope":           string(crd.Spec.Scope),
		"versions":        versions,
		"storedVersions":  anyList(crd.Status.StoredVersions),
		"conversion":      conversion(crd),
		"objects":         count,
		"migrationNeeded": MigrationNeeded(crd),
		"shortNames":      anyList(crd.Spec.Names.ShortNames),
		"categories":      anyList(crd.Spec.Names.Categories),
		"conditions":      anyList(unhealthy(crd)),
	}
}

func anyList(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
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

// conversion is "None", or "Webhook" with its service or URL.
func conversion(crd *apiextensionsv1.CustomResourceDefinition) string {
	c := crd.Spec.Conversion
	if c == nil || c.Strategy != apiextensionsv1.WebhookConverter {
		return "None"
	}
	if c.Webhook != nil && c.Webhook.ClientConfig != nil {
		cc := c.Webhook.ClientConfig
		switch {
		case cc.Service != nil:
			return fmt.Sprintf("Webhook (%s/%s)", cc.Service.Namespace, cc.Service.Name)
		case cc.URL != nil:
			return fmt.Sprintf("Webhook (%s)", *cc.URL)
		}
	}
	return "Webhook"
}

// unhealthy lists the CRD's conditions that are not as they should be
// (NonStructuralSchema present, Established or NamesAccepted not true, a
// terminating CRD).
func unhealthy(crd *apiextensionsv1.CustomResourceDefinition) []string {
	var out []string
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
