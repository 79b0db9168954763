package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
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

// TestNoExecCredentialInOutput: the token comes from an exec credential
// plugin; neither it nor the plugin's output is printed at -v=9.
func TestNoExecCredentialInOutput(t *testing.T) {
	dir := t.TempDir()
	plugin := filepath.Join(dir, "credential-plugin")
	script := fmt.Sprintf("#!/bin/sh\nprintf '{\"apiVersion\":\"client.authentication.k8s.io/v1\",\"kind\":\"ExecCredential\",\"status\":{\"token\":\"%s\"}}'\n", testCluster.Token)
	if err := os.WriteFile(plugin, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, err := clientcmd.LoadFromFile(testCluster.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	for name := range cfg.AuthInfos {
		cfg.AuthInfos[name] = &clientcmdapi.AuthInfo{Exec: &clientcmdapi.ExecConfig{
			APIVersion: "client.authentication.k8s.io/v1", Command: plugin, InteractiveMode: clientcmdapi.NeverExecInteractiveMode}}
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, kubeconfig); err != nil {
		t.Fatal(err)
	}
	r := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG=" + kubeconfig}, "-v=9", "get", "samples", "-A")
	if r.Code != 0 || !strings.Contains(r.Stdout, "alpha") {
		t.Fatalf("with the exec plugin: exit %d\n%s%.2000s", r.Code, r.Stdout, r.Stderr)
	}
	if strings.Contains(r.Stdout+r.Stderr, testCluster.Token) || strings.Contains(r.Stdout+r.Stderr, "ExecCredential\",\"status") {
		t.Errorf("-v=9 prints the exec plugin's credential")
	}
}
