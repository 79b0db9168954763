package lint

import "github.com/kubectl-crd/kubectl-crd/pkg/report"

// Check is one convention: its name (kube-api-linter's, where it has a
// linter that checks the same thing), its severity in each profile, and
// what it says.
type Check struct {
	Name string
	// KAL tells that the name is kube-api-linter's.
	KAL       bool
	CRD, Kube report.Severity
	Doc       string
}

const (
	errorSev   = report.Error
	warningSev = report.Warning
	infoSev    = report.Info
	ignoreSev  = report.Ignore
)

// Checks are every check, by name; docs/lint.md gives each its rationale
// and fix.
var Checks = []Check{
	{"maxlength", true, infoSev, warningSev, "a string without maxLength, a list without maxItems, a map without maxProperties"},
	{"minlength", true, ignoreSev, infoSev, "a string without minLength, a list without minItems, a map without minProperties"},
	{"nofloats", true, warningSev, errorSev, "a number field (float)"},
	{"integers", true, warningSev, errorSev, "an integer field that is not int32 or int64"},
	{"nobools", true, ignoreSev, warningSev, "a boolean field"},
	{"nophase", true, warningSev, errorSev, "a field named phase"},
	{"notimestamp", true, warningSev, errorSev, "a field named ...Timestamp"},
	{"nodurations", true, warningSev, errorSev, "a field of format duration"},
	{"nomaps", true, warningSev, errorSev, "a map whose values are not strings"},
	{"nonullable", true, warningSev, errorSev, "a nullable field"},
	{"noreferences", true, infoSev, warningSev, "a field named ...Reference(s)"},
	{"ssatags", true, warningSev, errorSev, "a list without x-kubernetes-list-type"},
	{"conditions", true, warningSev, errorSev, "status.conditions that is not a list-map keyed by type"},
	{"arrayofstruct", true, warningSev, errorSev, "a list of objects with no required field"},
	{"statussubresource", true, warningSev, errorSev, "a status field without the status subresource, or the reverse"},
	{"statusoptional", true, infoSev, warningSev, "a required status, or required fields in status"},
	{"defaultorrequired", true, warningSev, errorSev, "a required field with a default"},
	{"printercolumn-path", false, warningSev, warningSev, "a printer column whose JSONPath names no field of the version"},
	{"enum-value", false, errorSev, errorSev, "an enum value the field's own pattern, length or bounds refuse"},
	{"default-value", false, errorSev, errorSev, "a default the server refuses (the field's schema, its rules, unknown fields)"},
	{"listmap-key", false, errorSev, errorSev, "a list-map key that is neither required nor defaulted"},
	{"deprecation-warning", false, infoSev, warningSev, "a deprecated served version without deprecationWarning"},
	{"preserve-unknown-fields", false, warningSev, errorSev, "x-kubernetes-preserve-unknown-fields on the whole object, spec or status"},
}

// CheckNames are the names of Checks.
func CheckNames() []string {
	names := make([]string, len(Checks))
	for i, c := range Checks {
		names[i] = c.Name
	}
	return names
}
