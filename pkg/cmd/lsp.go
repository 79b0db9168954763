package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/lsp"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/spf13/cobra"
)

// LSPOptions are the options of kubectl crd lsp.
type LSPOptions struct {
	LogFile string
	Offline bool

	args    []string
	in      io.Reader
	out     io.Writer
	log     io.Writer
	options lsp.Options
}

// NewCmdLSP makes kubectl crd lsp.
func NewCmdLSP(f *factory.Factory) *cobra.Command {
	o := &LSPOptions{}
	c := &cobra.Command{
		Use:   "lsp [--crds PATH]",
		Short: "A language server: validate's findings, explain's docs and the schema's fields in the editor",
		Long: `Speak the Language Server Protocol on standard input and output, for an
editor: the diagnostics of validate on every YAML document of an open file
as it is typed (custom resources, built-in kinds and CRDs, checked by the
API server's own code), a field's documentation and constraints on hover,
and the schema's fields, enums and the known kinds as completions.

CRDs come from --crds, or from the cluster of the kubeconfig (--context),
or from the client's settings (initializationOptions or
workspace/didChangeConfiguration: "crds", "offline", "context",
"kubernetesVersion", "policies", "costWarning", "lint"); the CRDs
in a file count for the objects beside them. CRD files are read again when
they change. Objects are checked as creates. Logs go to standard error, or
--log-file. See docs/lsp.md for Neovim, Helix, Emacs and VS Code.`,
		Example: `  # Neovim (0.7+), in init.lua:
  #   vim.lsp.start_client({name = "kubectl-crd", cmd = {"kubectl-crd", "lsp", "--crds", "crds/"}})
  kubectl crd lsp --crds config/crd/bases --log-file /tmp/kubectl-crd-lsp.log`,
		RunE: runVerb(f, o),
	}
	c.Flags().StringVar(&o.LogFile, "log-file", "", "Write the server's log to this file instead of standard error.")
	c.Flags().BoolVar(&o.Offline, "offline", false, "Never contact a cluster: CRDs come from --crds and the open files only.")
	return c
}

// Complete takes the streams and the settings the flags give; each
// environment the client's settings ask for is made by the factory's
// clients for those settings.
func (o *LSPOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.args, o.in, o.out, o.log = args, f.Streams.In, f.Streams.Out, f.Streams.ErrOut
	if o.in == nil {
		o.in = os.Stdin
	}
	if f.RawOut != nil {
		o.out = f.RawOut // the protocol's messages are not lines
	}
	settings := lsp.Settings{CRDs: f.CRDPaths, Offline: o.Offline}
	if f.ConfigFlags.Context != nil {
		settings.Context = *f.ConfigFlags.Context
	}
	o.options = lsp.Options{
		Setup: func(s lsp.Settings) (*validate.Environment, error) {
			if slices.Contains(s.CRDs, "-") {
				return nil, errors.New("crds: - (standard input) carries the protocol here: name files or directories")
			}
			g := f.WithSettings(s.CRDs, s.Context, s.KubernetesVersion)
			g.NoCluster = s.Offline
			env, _, err := g.Environment(s.Offline, nil)
			if err != nil {
				return nil, err
			}
			env.Options.Admission, err = o.admission(env, s, f)
			return env, err
		},
		Settings: settings,
		Version:  Version,
	}
	return nil
}

// admission sets admission up as validate does: the settings' policies,
// or, when there are none, the cluster's (none offline). Their warnings,
// and the cluster's policies that cannot be read (then left out: the
// editor's checks go on without them), are said in the log.
func (o *LSPOptions) admission(env *validate.Environment, s lsp.Settings, f *factory.Factory) (*policies.Chain, error) {
	if slices.Contains(s.Policies, "-") {
		return nil, errors.New("policies: - (standard input) carries the protocol here: name files or directories")
	}
	logf := func(msg string) { fmt.Fprintf(o.log, "kubectl crd lsp: %s\n", msg) }
	a, err := env.SetUpAdmission(context.Background(), validate.AdmissionSetting{Policies: s.Policies, Sources: f.Sources(), User: f.User(), Warn: logf})
	var files *validate.PolicyFilesError
	switch {
	case errors.As(err, &files):
		return nil, fmt.Errorf("policies: %w", files.Err)
	case err != nil:
		logf(fmt.Sprintf("checking without the cluster's admission policies: %v", err))
		return nil, nil
	case a.NotChecked != "":
		logf(a.NotChecked)
	}
	return a.Chain, nil
}

// Validate checks the arguments.
func (o *LSPOptions) Validate() error {
	if len(o.args) > 0 {
		return fmt.Errorf("unexpected arguments %q: lsp takes none", o.args)
	}
	return nil
}

// Run serves the protocol until the client exits.
func (o *LSPOptions) Run(ctx context.Context) error {
	o.options.Log = o.log
	if o.LogFile != "" {
		file, err := os.OpenFile(o.LogFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return fmt.Errorf("--log-file: %w", err)
		}
		defer file.Close()
		o.options.Log = file
	}
	return lsp.Serve(ctx, o.in, o.out, o.options)
}
