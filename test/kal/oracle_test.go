package kal

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// oracleOutput is what the oracle writes (oracle/main.go).
type oracleOutput struct {
	Linters, Packages []string
	Findings          []kalFinding
	Fields            []declared
}

// kalFinding is a KAL finding with the fields of the kinds it lands on.
type kalFinding struct {
	Linter, Message, File string
	Line                  int
	Fields                []struct{ Group, Version, Kind, Field string }
}

// declared is a field of a kind, the Go packages of the field and of
// its type, and the field's markers.
type declared struct {
	Group, Version, Kind, Field, Package, TypePackage string
	Markers                                           []string
}

func goCmd(t *testing.T, dir string, args ...string) string {
	return runIn(t, dir, "go", args...)
}

func runIn(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The oracle module is its own: no workspace of the project's.
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String()
}

func relative(dir, file string) string {
	if r, err := filepath.Rel(dir, file); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return file
}
