package diff

import "github.com/kubectl-crd/kubectl-crd/pkg/report"

// Severity is how much a change matters: error (it breaks clients or
// stored objects), warning (it may), info (it does not), or ignore (the
// user asked not to see it).
type Severity = report.Severity

const (
	Error   = report.Error
	Warning = report.Warning
	Info    = report.Info
	Ignore  = report.Ignore
)

// Check is one kind of change between two CRDs, with the severity it has
// unless the user says otherwise.
type Check struct {
	Name     string
	Severity Severity
	Doc      string
}

// Checks lists every check, by name. unclassified is what no other check
// recognised; object-refused and field-pruned are the impact on stored
// objects.
var Checks = []Check{
	{"crd-added", Info, "a CRD is new: nothing it replaces, nothing stored"},
	{"crd-removed", Error, "a CRD of the old files is not in the new ones: a tool that prunes what it no longer applies deletes the CRD, and the server deletes every object of it"},
	{"scope-changed", Error, "the CRD's scope changed (the server refuses it once the CRD is established)"},
	{"kind-changed", Error, "the CRD's kind changed (the server refuses it once the CRD is established)"},
	{"names-changed", Info, "the singular, list kind, short names or categories changed"},
	{"name-conflict", Error, "a name is already another CRD's in the group: the server will not accept it"},
	{"version-removed", Error, "a version is no longer listed: clients of it break"},
	{"version-unserved", Error, "a version is no longer served: clients of it break"},
	{"version-added", Info, "a new version is listed"},
	{"version-served", Info, "a version is served again"},
	{"version-deprecated", Info, "a version is newly deprecated"},
	{"storage-moved", Warning, "the storage version changed: objects are stored at the new one on their next write"},
	{"stored-version-removed", Error, "a version still in status.storedVersions is removed: the server refuses the CRD until a storage migration"},
	{"conversion-changed", Warning, "the conversion strategy or webhook changed"},
	{"field-removed", Error, "a field is removed: the server prunes it from stored objects on their next write"},
	{"field-added", Info, "a field is added"},
	{"type-changed", Error, "a field's type changed"},
	{"required-added", Error, "a field became required"},
	{"required-removed", Info, "a field is no longer required"},
	{"enum-value-removed", Error, "an enum value is no longer allowed"},
	{"enum-value-added", Info, "an enum value is allowed"},
	{"enum-added", Error, "a field is newly restricted to an enum"},
	{"enum-removed", Info, "a field is no longer restricted to an enum"},
	{"default-added", Warning, "a default is added: the server fills it in on read and write"},
	{"default-changed", Warning, "a default changed"},
	{"default-removed", Warning, "a default is removed"},
	{"bound-tightened", Error, "a minimum, maximum, length, item or property bound is tighter"},
	{"bound-loosened", Info, "a bound is looser or gone"},
	{"pattern-changed", Error, "a pattern is added or changed"},
	{"pattern-removed", Info, "a pattern is removed"},
	{"nullable-removed", Error, "null is no longer allowed: the server drops null values"},
	{"nullable-added", Info, "null is allowed"},
	{"preserve-unknown-fields-removed", Error, "unknown fields are no longer kept: the server prunes them on the next write"},
	{"preserve-unknown-fields-added", Info, "unknown fields are kept"},
	{"list-type-changed", Error, "x-kubernetes-list-type, list-map-keys or map-type changed"},
	{"validation-rule-added", Warning, "a CEL rule is added"},
	{"validation-rule-changed", Warning, "a CEL rule changed"},
	{"validation-rule-removed", Info, "a CEL rule is removed"},
	{"unclassified", Warning, "a change no other check recognises"},
	{"object-refused", Error, "a stored object would be refused on its next unchanged write"},
	{"field-pruned", Error, "a stored object would lose fields on its next write"},
}

// severities returns each check's severity with the user's overrides
// (NAME=error|warning|info|ignore) applied.
func severities(overrides []string) (map[string]Severity, error) {
	defaults := map[string]Severity{}
	for _, c := range Checks {
		defaults[c.Name] = c.Severity
	}
	return report.Severities(defaults, overrides)
}

// CheckSettings are the values of --check (NAME=SEVERITY) that start with
// prefix, for shell completion.
func CheckSettings(prefix string) []string {
	names := make([]string, len(Checks))
	for i, c := range Checks {
		names[i] = c.Name
	}
	return report.CheckSettings(names, prefix)
}
