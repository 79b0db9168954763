package convert

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// startExampleWebhook builds and starts examples/conversion/webhook on a
// free loopback port and returns its URL and the CA it wrote.
func startExampleWebhook(t *testing.T, args ...string) (url, ca string) {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "webhook")
	build := exec.Command("go", "build", "-o", exe, "./examples/conversion/webhook")
	build.Dir = repoRoot
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the example webhook: %v\n%s", err, out)
	}
	certs := t.TempDir()
	cmd := exec.Command(exe, append([]string{"--listen", "127.0.0.1:0", "--cert-dir", certs}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	serving := regexp.MustCompile(`serving conversions on (https://\S+)/convert`)
	found := make(chan string, 1)
	go func() {
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			if m := serving.FindStringSubmatch(lines.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case url = <-found:
	case <-time.After(30 * time.Second):
		t.Fatal("the example webhook did not start")
	}
	return url, filepath.Join(certs, "ca.crt")
}

// TestExampleWebhookLoop runs docs/convert.md's loop for a webhook author on
// the examples: the example webhook, run locally, converts the example
// backups with no loss; its lossy variant loses spec.retention.copies
// (which then comes back as v2's default), which --round-trip names with
// its line.
func TestExampleWebhookLoop(t *testing.T) {
	objects := filepath.Join(repoRoot, "examples/conversion/backups.yaml")
	crds := filepath.Join(repoRoot, "examples/conversion/crd.yaml")
	url, ca := startExampleWebhook(t)
	r := convertOffline(t, "-f", objects, "--crds", crds, "--round-trip", "--webhook-url", url, "--webhook-ca", ca)
	if r.Code != 0 || !strings.Contains(r.Stdout, "2 objects, 0 changed or failed by a round trip") {
		t.Errorf("the example webhook: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = convertOffline(t, "-f", objects, "--crds", crds, "--output-version", "v1", "--webhook-url", url, "--webhook-ca", ca)
	if r.Code != 0 || !strings.Contains(r.Stdout, "conversion.example.com/retention-copies: \"3\"") || !strings.Contains(r.Stdout, "retentionDays: 30") {
		t.Errorf("the example backups at v1: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	// Without the CA, the certificate is refused, as the cluster would
	// refuse it without a caBundle.
	r = convertOffline(t, "-f", objects, "--crds", crds, "--round-trip", "--webhook-url", url)
	if r.Code != 1 || !strings.Contains(r.Stdout, "x509") {
		t.Errorf("without --webhook-ca: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}

	url, ca = startExampleWebhook(t, "--forget-copies")
	r = convertOffline(t, "-f", objects, "--crds", crds, "--round-trip", "--webhook-url", url, "--webhook-ca", ca)
	want := objects + ":" + strconv.Itoa(lineOf(t, objects, "copies: 3")) + ":5: spec.retention.copies: changed from 3 to 1"
	if r.Code != 1 || !strings.Contains(r.Stdout, "v2 -> v1 -> v2: 1 field") || !strings.Contains(r.Stdout, want) {
		t.Errorf("the lossy variant: exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
}
