package harness

import (
	"regexp"
	"strings"
	"testing"
)

var ageCell = regexp.MustCompile(`\b(\d+[smhdy])+\b`)

// Normalize makes kubectl outputs taken a moment apart comparable: ages
// become "AGE" and runs of blanks (whose width depends on the ages) one
// blank.
func Normalize(s string) string {
	s = ageCell.ReplaceAllString(s, "AGE")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// WithoutAges drops every age cell from stdout.
func WithoutAges(r Result) Result {
	r.Stdout = ageCell.ReplaceAllString(r.Stdout, "")
	return r
}

// Compare reports differences of exit code, stdout and stderr, after
// Normalize.
func Compare(t testing.TB, got, want Result) {
	t.Helper()
	if got.Code != want.Code {
		t.Errorf("exit %d, kubectl exit %d", got.Code, want.Code)
	}
	if Normalize(got.Stdout) != Normalize(want.Stdout) {
		t.Errorf("stdout:\n%s\nkubectl's stdout:\n%s", got.Stdout, want.Stdout)
	}
	if Normalize(got.Stderr) != Normalize(want.Stderr) {
		t.Errorf("stderr:\n%s\nkubectl's stderr:\n%s", got.Stderr, want.Stderr)
	}
}
