package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/spf13/cobra"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

// testFactory is a Factory over CRD files (no cluster: an empty
// kubeconfig), writing to buffers. (A command line's --crds replaces
// crdPaths.)
func testFactory(t *testing.T, crdPaths ...string) (*factory.Factory, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", kubeconfig)
	var out, errOut bytes.Buffer
	f := factory.New(genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	f.CRDPaths = crdPaths
	return f, &out, &errOut
}

func testdata(parts ...string) string {
	return filepath.Join(append([]string{"..", "..", "test", "testdata"}, parts...)...)
}

// execute runs a command line through the command tree, as Run does.
func execute(f *factory.Factory, args ...string) error {
	root := newRootCommand(f)
	root.SetArgs(args)
	return root.Execute()
}

// TestGetOffline: get's options complete over files, and a category
// without custom resources lists none, as kubectl says it.
func TestGetOffline(t *testing.T) {
	examples := filepath.Join("..", "..", "examples")
	f, out, errOut := testFactory(t, filepath.Join(examples, "crds"))
	if err := execute(f, "get", "all", "--crds", filepath.Join(examples, "crds")); err != nil {
		t.Fatal(err)
	}
	if got := errOut.String(); got != "No resources found in default namespace.\n" || out.Len() != 0 {
		t.Errorf("an empty category: stdout %q, stderr %q", out, got)
	}
	f, out, errOut = testFactory(t)
	err := execute(f, "get", "-o", "name", "--crds", filepath.Join(examples, "crds"), "-f", filepath.Join(examples, "objects", "valid"))
	// In the files' order, as kubectl get -f prints them.
	want := "crontab.stable.example.com/nightly\ncrontab.stable.example.com/every-five-minutes\ncrontab.stable.example.com/defaults\n"
	if err != nil || out.String() != want {
		t.Errorf("get -f: %v\n%s%s", err, out, errOut)
	}
}

// TestFlagChecks: each verb's Validate refuses what it cannot do, before
// anything is read: every case names --crds files that do not exist, which
// a verb that read them first would report instead.
func TestFlagChecks(t *testing.T) {
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"validate"}, "no input: name files or directories (with -f or as arguments), or a kustomization with -k"},
		{[]string{"validate", "-k", "dir", "x.yaml"}, `unexpected arguments ["x.yaml"]: -k builds the input, files cannot be added to it`},
		{[]string{"validate", "-f", "a", "-k", "b"}, "-f and -k cannot be used together"},
		{[]string{"validate", "-f", "a", "-o", "xml"}, `--output must be one of text, json, yaml, junit, sarif, github, not "xml"`},
		{[]string{"validate", "-f", "a", "--validate", "loose"}, `--validate must be strict, warn or ignore, not "loose"`},
		{[]string{"openapi", "--openapi-version", "4"}, "--openapi-version must be 3 or 2, not 4"},
		{[]string{"openapi", "-o", "xml"}, `--output must be json, yaml or jsonschema, not "xml"`},
		{[]string{"openapi", "-o", "jsonschema"}, "-o jsonschema writes one file per kind and version: it needs --output-dir"},
		{[]string{"openapi", "--output-dir", "d", "--openapi-version", "2"}, "--output-dir writes v3 documents; it does not go with --openapi-version=2"},
		{[]string{"openapi", "--layout", "vscode"}, "--layout says where the files of --output-dir go: it needs --output-dir"},
		{[]string{"openapi", "--layout", "kubeval", "--output-dir", "d"}, `--layout must be one of kubeconform, vscode, kubectl-validate, not "kubeval"`},
		{[]string{"openapi", "--layout", "vscode", "--output-dir", "d", "-o", "json"}, "--layout vscode holds JSON Schemas: it goes with -o jsonschema, not -o json"},
		{[]string{"openapi", "--layout", "kubectl-validate", "--output-dir", "d", "-o", "yaml"}, "--layout kubectl-validate holds OpenAPI documents in JSON: it goes with -o json, not -o yaml"},
		{[]string{"openapi", "--layout", "kubectl-validate", "--output-dir", "d", "--openapi-version", "2"}, "--output-dir writes v3 documents; it does not go with --openapi-version=2"},
		{[]string{"explain", "crontabs", "-o", "yaml"}, `--output "yaml" is not supported: use plaintext, plaintext-openapiv2, detailed or markdown`},
		{[]string{"explain", "-o", "markdown"}, "-o markdown documents one TYPE[.FIELD...]"},
		// --crds is given to every case here: with --old it is not used.
		{[]string{"diff", "-f", "missing-new", "--old", "missing-old"}, "--crds is not used with --old: the old CRDs are those of --old"},
		{[]string{"diff", "-f", "missing-new", "-o", "xml"}, `--output must be one of text, json, markdown, github, sarif, not "xml"`},
		{[]string{"validate", "-f", "a", "--offline", "--replace"}, "--replace checks updates of objects that exist: offline, name them with --old"},
		{[]string{"cost", "-o", "xml"}, `--output must be one of text, json, markdown, not "xml"`},
		{[]string{"test", "suites", "-o", "xml"}, `--output must be one of text, json, junit, not "xml"`},
		{[]string{"test", "suites", "--run", "("}, "--run: error parsing regexp: missing closing ): `(`"},
		{[]string{"docs"}, "--output-dir is required: the directory to write the reference into"},
		{[]string{"docs", "--output-dir", "d", "--lint", "strict"}, `--lint must be one of crd, kube, not "strict"`},
		{[]string{"sample", "a", "b"}, "sample takes one TYPE, not 2 arguments"},
		{[]string{"list", "-l", "a in (b"}, "unable to parse requirement: found '', expected: ',' or ')'"},
		{[]string{"convert", "-f", "x", "--round-trip", "--check"}, "--round-trip and --check cannot be used together"},
		// Said before the catalog (--crds names no file) is read.
		{[]string{"explain", "crontabs", "--max-depth", "2"}, "--max-depth requires --recursive"},
		{[]string{"get", "crontabs", "--show-labels", "-o", "json"}, "--show-labels option cannot be used with json printer"},
		{[]string{"get", "crontabs", "--output-watch-events"}, "--output-watch-events option can only be used with --watch or --watch-only"},
	}
	for _, tt := range tests {
		f, _, _ := testFactory(t)
		err := execute(f, append(tt.args, "--crds", filepath.Join(t.TempDir(), "missing"))...)
		if err == nil || err.Error() != tt.err {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.err)
		}
	}
}

// TestExplainComplete: explain's argument resolves to the CRD, version and
// field path, with kubectl's names.
func TestExplainComplete(t *testing.T) {
	f, _, _ := testFactory(t, testdata("crds"))
	o := &ExplainOptions{Output: "plaintext"}
	c := &cobra.Command{}
	if err := o.Complete(f, c, []string{"wd.spec.size"}); err != nil || o.resolve(context.Background()) != nil {
		t.Fatal(err)
	}
	if got := o.target.CRD.Name + " " + o.target.GVR.Version + " " + strings.Join(o.target.Fields, "."); got != "widgets.alpha.example.com v1 spec.size" {
		t.Errorf("target %q", got)
	}
	o.APIVersion = "alpha.example.com/v1beta1"
	if err := o.Complete(f, c, []string{"widgets.spec"}); err != nil || o.resolve(context.Background()) != nil || o.target.GVR.Version != "v1beta1" {
		t.Errorf("--api-version: %v, %+v", err, o.target.GVR)
	}
}

// TestValidateFileArguments: files named as arguments (as pre-commit
// passes them) are checked as with -f, in the order given.
func TestValidateFileArguments(t *testing.T) {
	examples := filepath.Join("..", "..", "examples")
	crds := filepath.Join(examples, "crds")
	valid := filepath.Join(examples, "objects", "valid")
	invalid := filepath.Join(examples, "objects", "invalid")
	run := func(args ...string) (string, string, error) {
		f, out, errOut := testFactory(t)
		err := execute(f, append([]string{"validate", "--offline", "--crds", crds}, args...)...)
		return out.String(), errOut.String(), err
	}
	wantOut, wantErr, wantCode := run("-f", invalid, "-f", valid)
	gotOut, gotErr, gotCode := run("-f", invalid, valid)
	if gotOut != wantOut || gotErr != wantErr || fmt.Sprint(gotCode) != fmt.Sprint(wantCode) {
		t.Errorf("-f %s %s: %v\n%s%s\nwant, as with two -f: %v\n%s%s", invalid, valid, gotCode, gotOut, gotErr, wantCode, wantOut, wantErr)
	}
	var exit *ExitError
	if !errors.As(gotCode, &exit) || exit.Code != 1 || !strings.Contains(gotOut, "invalid") {
		t.Errorf("an invalid object named as an argument: %v\n%s", gotCode, gotOut)
	}
}

// TestCommandsDecodeOnlyTheCRDsTheyUse: get -f, openapi GROUP/VERSION,
// diff and completion decode only the CRDs their input uses, so that a
// directory's other CRDs cost nothing: one of them that cannot be decoded
// does not matter to them, while a command that needs every CRD says so.
func TestCommandsDecodeOnlyTheCRDsTheyUse(t *testing.T) {
	examples := filepath.Join("..", "..", "examples")
	dir := t.TempDir()
	crontab, err := os.ReadFile(filepath.Join(examples, "crds", "crontab.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	broken := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.other.example.com
spec:
  group: other.example.com
  names: {plural: gadgets, singular: gadget, kind: Gadget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties: 5
`
	for name, data := range map[string][]byte{"crontab.yaml": crontab, "broken.yaml": []byte(broken)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run := func(args ...string) (string, error) {
		f, out, errOut := testFactory(t)
		err := execute(f, append([]string{args[0], "--crds", dir}, args[1:]...)...)
		return out.String() + errOut.String(), err
	}

	// Every CRD is needed: the broken one is an error naming its file.
	if out, err := run("openapi"); err == nil || !strings.Contains(err.Error(), "broken.yaml") {
		t.Fatalf("openapi of every CRD: %v\n%s", err, out)
	}
	if out, err := run("get", "-o", "name", "-f", filepath.Join(examples, "objects", "valid")); err != nil || !strings.Contains(out, "crontab.stable.example.com/nightly\n") {
		t.Errorf("get -f: %v\n%s", err, out)
	}
	if out, err := run("openapi", "stable.example.com/v1"); err != nil || !strings.Contains(out, `"/apis/stable.example.com/v1/namespaces/{namespace}/crontabs"`) {
		t.Errorf("openapi GROUP/VERSION: %v\n%s", err, out)
	}
	if out, err := run("diff", "-f", filepath.Join(examples, "crds", "crontab.yaml")); err != nil {
		t.Errorf("diff: %v\n%s", err, out)
	}
	if out, err := run("__complete", "get", "g"); err != nil || !strings.HasPrefix(out, "gadget\ngadgets\n") {
		t.Errorf("completion: %v\n%s", err, out)
	}
}

// TestUsageErrorsBeforeTheCluster: with a cluster that cannot be reached,
// a wrong flag is still said as a usage error, not as the connection's
// failure: the flags are checked before anything is read.
func TestUsageErrorsBeforeTheCluster(t *testing.T) {
	for _, tt := range []struct {
		args []string
		err  string
	}{
		{[]string{"migrate", "widgets", "--dry-run=bogus"}, `--dry-run must be "none", "client" or "server", not "bogus"`},
		{[]string{"explain", "widgets", "--max-depth", "2"}, "--max-depth requires --recursive"},
		{[]string{"get", "widgets", "--output-watch-events"}, "--output-watch-events option can only be used with --watch or --watch-only"},
	} {
		f, _, _ := testFactory(t)
		kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
		unreachable := "apiVersion: v1\nkind: Config\nclusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]\n" +
			"contexts: [{name: c, context: {cluster: c, user: u}}]\nusers: [{name: u, user: {token: t}}]\ncurrent-context: c\n"
		if err := os.WriteFile(kubeconfig, []byte(unreachable), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv("KUBECONFIG", kubeconfig)
		err := execute(f, tt.args...)
		var usage *UsageError
		if err == nil || err.Error() != tt.err || !errors.As(err, &usage) {
			t.Errorf("%q: %v, want the usage error %q", tt.args, err, tt.err)
		}
	}
}
