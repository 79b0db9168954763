package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

type result struct {
	stdout, stderr string
	code           int
	elapsed        time.Duration
}

// runBinary runs one of the built binaries with a clean environment: PATH
// holds only the built binaries, HOME is a fresh directory, and env adds to
// that (KUBECONFIG is the test cluster's unless env sets it).
func runBinary(t *testing.T, name string, env []string, args ...string) result {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	cmd.Env = append([]string{
		"PATH=" + binDir,
		"HOME=" + home,
		"KUBECONFIG=" + testCluster.Kubeconfig,
		"KUBECACHEDIR=" + filepath.Join(home, "cache"),
	}, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{stdout: stdout.String(), stderr: stderr.String(), elapsed: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running %s %v: %v", name, args, err)
	}
	return r
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
