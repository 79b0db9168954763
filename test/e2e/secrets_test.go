package e2e

import (
	"strings"
	"testing"
)

// TestNoSecretInOutput runs every verb at -v=9 (client-go then logs each
// request, its headers and its response) and checks that the kubeconfig's
// bearer token appears nowhere in stdout or stderr, also when the server
// refuses the token.
func TestNoSecretInOutput(t *testing.T) {
	token := testCluster.Token
	if len(token) < 16 {
		t.Fatalf("the test cluster's token %d characters long is too short to grep for", len(token))
	}
	runs := [][]string{
		{"get", "samples", "-A", "-o", "wide"},
		{"explain", "samples.spec"},
		{"openapi", "printing.example.com/v1"},
		{"validate", "-f", objectDir},
		{"__complete", "get", "samples", ""},
		{"get", "no-such-type"},
	}
	checked := 0
	for _, args := range runs {
		r := bin.Run(t, "kubectl-crd", nil, append([]string{"-v=9"}, args...)...)
		if !strings.Contains(r.Stderr, "Authorization") && args[0] != "__complete" {
			t.Errorf("%v -v=9 logs no request headers; the check would prove nothing:\n%.2000s", args, r.Stderr)
		}
		for _, out := range []string{r.Stdout, r.Stderr} {
			if strings.Contains(out, token) {
				t.Errorf("%v -v=9 prints the bearer token", args)
			}
		}
		checked++
	}
	// A token the server refuses is not printed either.
	wrong := strings.Repeat("x", 8) + token[8:]
	r := bin.Run(t, "kubectl-crd", nil, "get", "samples", "-v=9", "--token", wrong)
	if r.Code == 0 || strings.Contains(r.Stdout+r.Stderr, token[8:]) {
		t.Errorf("a refused token: exit %d, printed: %v", r.Code, strings.Contains(r.Stdout+r.Stderr, token[8:]))
	}
	t.Logf("%d command lines at -v=9: the token is in none of their output", checked+1)
}
