package report

import (
	"fmt"
	"slices"
	"strings"
)

// Severity is how much a finding matters: error (the command exits 1),
// warning, info, or ignore (the user asked not to see it).
type Severity string

const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Info    Severity = "info"
	Ignore  Severity = "ignore"
)

// Severities are defaults, each check's severity, with the user's
// --check overrides (NAME=error|warning|info|ignore) applied.
func Severities(defaults map[string]Severity, overrides []string) (map[string]Severity, error) {
	out := make(map[string]Severity, len(defaults))
	for name, s := range defaults {
		out[name] = s
	}
	for _, o := range overrides {
		name, value, ok := strings.Cut(o, "=")
		if _, known := out[name]; !ok || !known {
			names := make([]string, 0, len(defaults))
			for n := range defaults {
				names = append(names, n)
			}
			slices.Sort(names)
			return nil, fmt.Errorf("--check %q: want NAME=error|warning|info|ignore with NAME one of %s", o, strings.Join(names, ", "))
		}
		switch s := Severity(value); s {
		case Error, Warning, Info, Ignore:
			out[name] = s
		default:
			return nil, fmt.Errorf("--check %q: the severity must be error, warning, info or ignore", o)
		}
	}
	return out, nil
}

// CheckSettings are the values of --check (NAME=SEVERITY) over names that
// start with prefix, for shell completion.
func CheckSettings(names []string, prefix string) []string {
	var out []string
	name, _, _ := strings.Cut(prefix, "=")
	for _, n := range names {
		if !strings.HasPrefix(n, name) {
			continue
		}
		for _, s := range []Severity{Error, Warning, Info, Ignore} {
			if v := n + "=" + string(s); strings.HasPrefix(v, prefix) {
				out = append(out, v)
			}
		}
	}
	return out
}
