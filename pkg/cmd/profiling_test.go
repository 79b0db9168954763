package cmd

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// --profile writes a profile (pprof's format: gzip-compressed protocol
// buffers) to --profile-output, as kubectl's flags of the same names do;
// an unknown profile is an error.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	crds := filepath.Join("..", "..", "examples", "crds")
	objects := filepath.Join("..", "..", "examples", "objects", "valid")
	t.Setenv("KUBECONFIG", "")
	for _, name := range []string{"cpu", "heap", "goroutine", "mutex"} {
		out := filepath.Join(dir, name+".pprof")
		var stdout, stderr bytes.Buffer
		streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: &stdout, ErrOut: &stderr}
		if code := Run([]string{"validate", "-f", objects, "--crds", crds, "--profile", name, "--profile-output", out}, streams); code != 0 {
			t.Fatalf("--profile=%s: exit %d\n%s", name, code, stderr.String())
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatalf("--profile=%s: %v", name, err)
		}
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatalf("--profile=%s: not a pprof profile: %v", name, err)
		}
		data, err := io.ReadAll(z)
		f.Close()
		if err != nil || len(data) == 0 {
			t.Errorf("--profile=%s: %d bytes of profile, %v", name, len(data), err)
		}
	}

	var stderr bytes.Buffer
	streams := genericiooptions.IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: &stderr}
	if code := Run([]string{"version", "--profile", "bogus"}, streams); code == 0 || !strings.Contains(stderr.String(), `unknown profile "bogus"`) {
		t.Errorf("--profile=bogus: exit %d\n%s", code, stderr.String())
	}
}
