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
// Normalize. want is kubectl's answer (or kubectl crd's own, for the
// verbs that print as kubectl does, which have no findings): kubectl
// exits 1 on an error, where kubectl crd's contract is 2 (a job that
// could not be done), so a want of 1 asks for 2.
func Compare(t testing.TB, got, want Result) {
	t.Helper()
	if code := KubectlCrdCode(want.Code); got.Code != code {
		t.Errorf("exit %d, want %d (kubectl exit %d)", got.Code, code, want.Code)
	}
	if Normalize(got.Stdout) != Normalize(want.Stdout) {
		t.Errorf("stdout:\n%s\nkubectl's stdout:\n%s", got.Stdout, want.Stdout)
	}
	if Normalize(got.Stderr) != Normalize(want.Stderr) {
		t.Errorf("stderr:\n%s\nkubectl's stderr:\n%s", got.Stderr, want.Stderr)
	}
}

// KubectlCrdCode is the exit code kubectl crd gives where kubectl gives
// code: the same, but 2 for kubectl's 1 (an error).
func KubectlCrdCode(code int) int {
	if code == 1 {
		return 2
	}
	return code
}
