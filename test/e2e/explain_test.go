package e2e

import (
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/test/harness"
)

// explainCases are kubectl explain arguments over the test CRDs: roots,
// fields, nested fields, arrays, recursion, versions and errors.
var explainCases = [][]string{
	{"crontabs"}, {"ct.spec"}, {"crontabs.spec.cronSpec"}, {"crontabs.spec.replicas"},
	{"crontabs.status"}, {"crontabs.metadata"}, {"crontabs.metadata.labels"},
	{"crontabs", "--recursive"}, {"crontabs.spec", "--recursive"},
	{"crontabs", "--api-version", "stable.example.com/v1beta1"},
	{"crontabs.spec.nosuch"}, {"crontabs", "--recursive", "--max-depth", "1"},
	{"doohickeys.spec.size"}, {"samples"}, {"samples.spec"}, {"gizmos"},
	{"widgets"}, {"widgets.zeta.example.com"}, {"nosuch"},
	{"features"}, {"features.spec"}, {"features.spec", "--recursive"}, {"features.spec.rules"},
	{"features.spec.port"}, {"features.spec.template"}, {"features.spec.labels"},
	{"crontabs.spec", "-o", "plaintext-openapiv2"}, {"features", "--recursive", "-o", "plaintext-openapiv2"},
}

// TestExplainMatchesKubectl compares kubectl crd explain (the OpenAPI
// document built on the client) with kubectl explain (the server's
// /openapi/v3), and offline with online.
func TestExplainMatchesKubectl(t *testing.T) {
	for _, args := range explainCases {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			args := append([]string{"explain"}, args...)
			want := bin.Run(t, "kubectl", nil, args...)
			got := bin.Run(t, "kubectl-crd", nil, args...)
			// kubectl explain does not warn about deprecated versions;
			// kubectl crd explain does, as kubectl warns for the others.
			const warning = "Warning: stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab\n"
			if strings.Contains(strings.Join(args, " "), "v1beta1") {
				if !strings.HasPrefix(got.Stderr, warning) {
					t.Errorf("no deprecation warning: %q", got.Stderr)
				}
				got.Stderr = strings.TrimPrefix(got.Stderr, warning)
			}
			if want.Code != 0 {
				// kubectl's words after "error: " (which kubectl leaves
				// out for an unknown type), the close names after them
				// (none for these), and no header printed before them.
				msg := strings.TrimPrefix(strings.TrimSpace(want.Stderr), "error: ")
				if got.Code != 2 || got.Stdout != "" || got.Stderr != "error: "+msg+"\n" {
					t.Errorf("exit %d, stdout %q, stderr %q; want 2, nothing, %q", got.Code, got.Stdout, got.Stderr, "error: "+msg+"\n")
				}
				return
			}
			harness.Compare(t, got, want)
			if got.Code == 0 && !strings.Contains(got.Stdout, "KIND:") {
				t.Errorf("no KIND line:\n%s", got.Stdout)
			}
			offline := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, append(args, "--crds", crdDirs[0], "--crds", crdDirs[1])...)
			if got.Code == 0 {
				offline.Stderr = strings.TrimPrefix(offline.Stderr, warning)
				harness.Compare(t, offline, got)
			}
		})
	}
}

// TestExplainDetailedAndMarkdown: -o detailed is kubectl's text followed by
// the constraints; both it and -o markdown are the same offline.
func TestExplainDetailedAndMarkdown(t *testing.T) {
	for _, args := range [][]string{{"features.spec"}, {"features", "--recursive"}, {"crontabs.spec.replicas"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			plain := bin.Run(t, "kubectl", nil, append([]string{"explain"}, args...)...)
			detailed := bin.Run(t, "kubectl-crd", nil, append([]string{"explain", "-o", "detailed"}, args...)...)
			if detailed.Code != 0 || !strings.HasPrefix(detailed.Stdout, plain.Stdout) || !strings.Contains(detailed.Stdout[len(plain.Stdout):], "\nCONSTRAINTS:\n") {
				t.Errorf("-o detailed (exit %d) is not kubectl's text and constraints:\n%s%s", detailed.Code, detailed.Stdout, detailed.Stderr)
			}
			for _, format := range []string{"detailed", "markdown"} {
				args := append([]string{"explain", "-o", format}, args...)
				online := bin.Run(t, "kubectl-crd", nil, args...)
				offline := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, append(args, "--crds", crdDirs[0], "--crds", crdDirs[1])...)
				if online.Code != 0 || offline.Stdout != online.Stdout {
					t.Errorf("-o %s: offline differs from online (exit %d):\n%s\n%s", format, online.Code, offline.Stdout, online.Stdout)
				}
			}
		})
	}
	// A misspelt type or field: the closest names after kubectl's words.
	for args, want := range map[string]string{
		"crontab.spec.replica": "error: field \"replica\" does not exist\nDid you mean replicas?\n",
		"crontabz":             "error: the server doesn't have a resource type \"crontabz\"\nDid you mean crontabs.stable.example.com?\n",
	} {
		if r := bin.Run(t, "kubectl-crd", []string{"KUBECONFIG="}, "explain", args, "--crds", crdDirs[1]); r.Code != 2 || r.Stdout != "" || r.Stderr != want {
			t.Errorf("explain %s: exit %d, %q%q; want 2 and %q", args, r.Code, r.Stdout, r.Stderr, want)
		}
	}
	r := bin.Run(t, "kubectl-crd", nil, "explain", "crontabs", "-o", "yaml")
	if r.Code != 2 || !strings.Contains(r.Stderr, "use plaintext, plaintext-openapiv2, detailed or markdown") {
		t.Errorf("-o yaml: exit %d, %s", r.Code, r.Stderr)
	}
}
