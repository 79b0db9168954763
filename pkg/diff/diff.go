// Package diff says what an upgrade of a CRD changes, check by check (in
// the manner of crdify: each check named, with a severity the user can
// change), and what it does to the objects already stored: which would be
// refused at their next write, which would lose fields.
package diff

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/lifecycle"
	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/equality"
)

// Change is one difference between the old and the new CRD.
type Change struct {
	// Version is the CRD version it is about ("" for the whole CRD).
	Version string `json:"version"`
	// Field is the field of the objects it is about (.spec.replicas), ""
	// for the CRD itself.
	Field    string   `json:"path"`
	Check    string   `json:"check"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// Location is where the change is in the new CRD's document (a field
	// path of the CRD: spec.versions[0].schema...), Line and Column its
	// place in the file, when known.
	Location string `json:"-"`
	Line     int    `json:"line,omitempty"`
	Column   int    `json:"column,omitempty"`
}

// Compare lists what changes from old to new: the CRD's scope, versions,
// storage, conversion, and for every version both have, its schema.
func Compare(old, new *apiextensionsv1.CustomResourceDefinition) []Change {
	var changes []Change
	add := func(version, loc, check, format string, args ...any) {
		changes = append(changes, Change{Version: version, Location: loc, Check: check, Message: fmt.Sprintf(format, args...)})
	}
	if old.Spec.Scope != new.Spec.Scope {
		add("", "spec.scope", "scope-changed", "scope %s is now %s", old.Spec.Scope, new.Spec.Scope)
	}
	on, nn := old.Spec.Names, new.Spec.Names
	if on.Kind != nn.Kind {
		add("", "spec.names.kind", "kind-changed", "kind %s is now %s", on.Kind, nn.Kind)
	}
	if on.Singular != nn.Singular || on.ListKind != nn.ListKind || !slices.Equal(on.ShortNames, nn.ShortNames) || !slices.Equal(on.Categories, nn.Categories) {
		add("", "spec.names", "names-changed", "names (singular %s, list kind %s, short names %v, categories %v) are now (%s, %s, %v, %v)",
			on.Singular, on.ListKind, on.ShortNames, on.Categories, nn.Singular, nn.ListKind, nn.ShortNames, nn.Categories)
	}
	oldStorage, _ := apihelpers.GetCRDStorageVersion(old)
	newStorage, _ := apihelpers.GetCRDStorageVersion(new)
	for _, stored := range old.Status.StoredVersions {
		if versionIndex(new, stored) < 0 {
			add(stored, "spec.versions", "stored-version-removed",
				"version %s is in status.storedVersions but no longer in spec.versions: objects may still be stored at it, and the server refuses the CRD until they are migrated (kubectl crd migrate %s) and storedVersions is pruned",
				stored, new.Name)
		}
	}
	for _, ov := range old.Spec.Versions {
		i := versionIndex(new, ov.Name)
		if i < 0 {
			if !slices.Contains(old.Status.StoredVersions, ov.Name) {
				add(ov.Name, "spec.versions", "version-removed", "version %s is removed", ov.Name)
			}
			continue
		}
		nv := new.Spec.Versions[i]
		loc := fmt.Sprintf("spec.versions[%d]", i)
		switch {
		case ov.Served && !nv.Served:
			add(ov.Name, loc+".served", "version-unserved", "version %s is no longer served", ov.Name)
		case !ov.Served && nv.Served:
			add(ov.Name, loc+".served", "version-served", "version %s is served again", ov.Name)
		}
		if !ov.Deprecated && nv.Deprecated {
			add(ov.Name, loc+".deprecated", "version-deprecated", "version %s is deprecated", ov.Name)
		}
		changes = append(changes, compareSchemas(ov, nv, loc)...)
	}
	for i, nv := range new.Spec.Versions {
		if versionIndex(old, nv.Name) < 0 {
			add(nv.Name, fmt.Sprintf("spec.versions[%d]", i), "version-added", "version %s is added", nv.Name)
		}
	}
	if oldStorage != newStorage {
		add(newStorage, fmt.Sprintf("spec.versions[%d].storage", versionIndex(new, newStorage)), "storage-moved",
			"the storage version %s is now %s: objects move to it on their next write%s", oldStorage, newStorage, conversionNote(new))
	}
	if !equality.Semantic.DeepEqual(old.Spec.Conversion, new.Spec.Conversion) {
		add("", "spec.conversion", "conversion-changed", "conversion %s is now %s", lifecycle.ConversionOf(old), lifecycle.ConversionOf(new))
	}
	return changes
}

func compareSchemas(ov, nv apiextensionsv1.CustomResourceDefinitionVersion, loc string) []Change {
	oldSchema, newSchema := schemaOf(ov), schemaOf(nv)
	if oldSchema == nil || newSchema == nil {
		return nil
	}
	w := &schemaWalk{version: ov.Name}
	w.node(oldSchema, newSchema, "", loc+".schema.openAPIV3Schema")
	return w.changes
}

func schemaOf(v apiextensionsv1.CustomResourceDefinitionVersion) *apiextensionsv1.JSONSchemaProps {
	if v.Schema == nil {
		return nil
	}
	return v.Schema.OpenAPIV3Schema
}

func versionIndex(crd *apiextensionsv1.CustomResourceDefinition, name string) int {
	return slices.IndexFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == name })
}

// conversionNote says what None does, after a storage version's move.
func conversionNote(crd *apiextensionsv1.CustomResourceDefinition) string {
	if c := lifecycle.ConversionOf(crd); c.None() {
		return " (conversion None: " + c.Meaning() + ")"
	}
	return ""
}

// Judge gives each change its severity (with the user's overrides) and
// drops the ignored ones.
func Judge(changes []Change, overrides []string) ([]Change, error) {
	sev, err := severities(overrides)
	if err != nil {
		return nil, err
	}
	out := changes[:0]
	for _, c := range changes {
		c.Severity = sev[c.Check]
		if c.Severity != Ignore {
			out = append(out, c)
		}
	}
	return out, nil
}

// Breaking tells whether any change is at error severity.
func Breaking(changes []Change) bool {
	return slices.ContainsFunc(changes, func(c Change) bool { return c.Severity == Error })
}

// describe is a change as one line of text.
func (c Change) describe() string {
	var where []string
	if c.Version != "" {
		where = append(where, c.Version)
	}
	if c.Field != "" {
		where = append(where, c.Field)
	}
	if len(where) == 0 {
		return c.Message
	}
	return strings.Join(where, " ") + ": " + c.Message
}

// Competes tells whether other's names can conflict with crd's: it is
// another CRD of the same group (names are unique only within a group).
// It looks at names and group only, so an outline of other will do.
func Competes(crd, other *apiextensionsv1.CustomResourceDefinition) bool {
	return other.Name != crd.Name && other.Spec.Group == crd.Spec.Group
}

// NameConflicts lists the names of crd that another CRD of its group
// already has (plural, singular, short names, kind, list kind): the server
// accepts the CRD but not those names (NamesAccepted false), and does not
// serve them.
func NameConflicts(crd *apiextensionsv1.CustomResourceDefinition, others []*apiextensionsv1.CustomResourceDefinition) []Change {
	taken := map[string]string{}
	for _, o := range others {
		if !Competes(crd, o) {
			continue
		}
		n := o.Status.AcceptedNames
		if n.Plural == "" {
			n = o.Spec.Names
		}
		for _, name := range append([]string{n.Plural, n.Singular, n.Kind, n.ListKind}, n.ShortNames...) {
			if name != "" {
				taken[name] = o.Name
			}
		}
	}
	var out []Change
	n := crd.Spec.Names
	for _, name := range append([]string{n.Plural, n.Singular, n.Kind, n.ListKind}, n.ShortNames...) {
		if other, ok := taken[name]; ok && name != "" {
			out = append(out, Change{Location: "spec.names", Check: "name-conflict",
				Message: fmt.Sprintf("name %q is already %s's: the server will not accept it (NamesAccepted false)", name, other)})
		}
	}
	return out
}

// Between lists what changes from one version's schema to another's in
// the same CRD (fields added and removed, types, bounds, rules), with the
// checks Compare makes of a version across an upgrade.
func Between(from, to apiextensionsv1.CustomResourceDefinitionVersion) []Change {
	changes := compareSchemas(from, to, "")
	for i := range changes {
		changes[i].Version = to.Name
	}
	return changes
}
