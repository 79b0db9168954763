package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestNoCollectionWhileStarting: no garbage is collected while packages
// initialise (internal/startup is initialised before the heavy ones), and
// none for a command as small as version; a GOGC the user set is obeyed.
func TestNoCollectionWhileStarting(t *testing.T) {
	r := bin.Run(t, "kubectl-crd", []string{"GODEBUG=gctrace=1,inittrace=1"}, "version")
	if r.Code != 0 {
		t.Fatalf("version: exit %d\n%s", r.Code, r.Stderr)
	}
	initialisedEarly(t, r.Stderr, "internal/startup")
	collections := 0
	for _, line := range strings.Split(r.Stderr, "\n") {
		if strings.HasPrefix(line, "gc ") {
			collections++
		}
	}
	if collections != 0 {
		t.Errorf("%d garbage collections during version:\n%s", collections, r.Stderr)
	}

	r = bin.Run(t, "kubectl-crd", []string{"GODEBUG=gctrace=1", "GOGC=1"}, "version")
	if r.Code != 0 || !strings.Contains(r.Stderr, "gc 1 @") {
		t.Errorf("GOGC=1: no collection, so the user's GOGC was not obeyed: exit %d\n%s", r.Code, r.Stderr)
	}
}

// TestValidateCollectsBeforeValidating: validate's first collection is the
// one it asks for before validating (gctrace marks it "forced"), so that
// the collector's pace does not depend on the input's timing.
func TestValidateCollectsBeforeValidating(t *testing.T) {
	r := bin.Run(t, "kubectl-crd", []string{"GODEBUG=gctrace=1"}, "validate",
		"-f", filepath.Join(repoRoot, "examples/objects/valid"), "--crds", filepath.Join(repoRoot, "examples/crds"))
	if r.Code != 0 {
		t.Fatalf("validate: exit %d\n%s", r.Code, r.Stderr)
	}
	for _, line := range strings.Split(r.Stderr, "\n") {
		if strings.HasPrefix(line, "gc ") {
			if !strings.HasSuffix(line, "(forced)") {
				t.Errorf("first collection not the forced one:\n%s", r.Stderr)
			}
			return
		}
	}
	t.Errorf("no collection at all:\n%s", r.Stderr)
}

// TestValidateReadsWhileStarting: validate's files are read while the
// program initialises (internal/prefetch is initialised before the heavy
// packages, and says so at -v=4), and the report is the one of a run that
// reads them at the usual time (a flag before the command name keeps
// internal/prefetch from reading early).
func TestValidateReadsWhileStarting(t *testing.T) {
	args := []string{"-R", "-f", filepath.Join(repoRoot, "examples/objects"), "--crds", filepath.Join(repoRoot, "examples/crds"), "-o", "json"}
	early := bin.Run(t, "kubectl-crd", []string{"GODEBUG=inittrace=1"}, append([]string{"validate", "-v=4"}, args...)...)
	usual := bin.Run(t, "kubectl-crd", nil, append([]string{"-v=4", "validate"}, args...)...)
	if early.Code != 1 || usual.Code != 1 {
		t.Fatalf("exit %d and %d, want 1 (the examples include invalid objects)\n%s\n%s", early.Code, usual.Code, early.Stderr, usual.Stderr)
	}
	if early.Stdout != usual.Stdout {
		t.Errorf("the reports differ:\nread while starting:\n%s\nread at the usual time:\n%s", early.Stdout, usual.Stdout)
	}
	if !strings.Contains(early.Stderr, "read while starting") {
		t.Errorf("validate -v=4 -f ...: the files were not read while starting:\n%s", early.Stderr)
	}
	if strings.Contains(usual.Stderr, "read while starting") {
		t.Errorf("-v=4 validate -f ...: the files were read while starting:\n%s", usual.Stderr)
	}
	initialisedEarly(t, early.Stderr, "internal/prefetch")
}

// initialisedEarly: in a run's GODEBUG=inittrace=1 output, the project's
// package pkg is initialised before the heavy packages (API schemes,
// metrics).
func initialisedEarly(t *testing.T, inittrace, pkg string) {
	t.Helper()
	order := map[string]int{}
	for i, line := range strings.Split(inittrace, "\n") {
		if fields := strings.Fields(line); len(fields) > 1 && fields[0] == "init" {
			order[fields[1]] = i
		}
	}
	at, ok := order["github.com/kubectl-crd/kubectl-crd/"+pkg]
	if !ok {
		t.Fatalf("%s was not initialised:\n%s", pkg, inittrace)
	}
	for _, heavy := range []string{"k8s.io/client-go/kubernetes/scheme", "k8s.io/kubectl/pkg/scheme", "k8s.io/component-base/metrics/legacyregistry"} {
		if h, found := order[heavy]; !found || h < at {
			t.Errorf("%s initialised before %s (or not at all)", heavy, pkg)
		}
	}
}
