package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/kubectl-crd/kubectl-crd/pkg/lsp"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/spf13/cobra"
)

// LSPOptions are the options of kubectl crd lsp.
type LSPOptions struct {
	f       *Factory
	LogFile string
}

// NewCmdLSP makes kubectl crd lsp.
func NewCmdLSP(f *Factory) *cobra.Command {
	o := &LSPOptions{f: f}
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
workspace/didChangeConfiguration: "crds", "offline", "context"); the CRDs
in a file count for the objects beside them. CRD files are read again when
they change. Objects are checked as creates. Logs go to standard error, or
--log-file. See docs/lsp.md for Neovim, Helix, Emacs and VS Code.`,
		Example: `  # Neovim (0.7+), in init.lua:
  #   vim.lsp.start_client({name = "kubectl-crd", cmd = {"kubectl-crd", "lsp", "--crds", "crds/"}})
  kubectl crd lsp --crds config/crd/bases --log-file /tmp/kubectl-crd-lsp.log`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return o.Run(contextOf(c))
		},
	}
	c.Flags().StringVar(&o.LogFile, "log-file", "", "Write the server's log to this file instead of standard error.")
	c.Flags().BoolVar(&f.NoCluster, "offline", false, "Never contact a cluster: CRDs come from --crds and the open files only.")
	return c
}

// Run serves the protocol until the client exits.
func (o *LSPOptions) Run(ctx context.Context) error {
	var logw io.Writer = o.f.Streams.ErrOut
	if o.LogFile != "" {
		file, err := os.OpenFile(o.LogFile, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return &ExitError{Code: 2, Err: fmt.Errorf("--log-file: %w", err)}
		}
		defer file.Close()
		logw = file
	}
	in := o.f.Streams.In
	if in == nil {
		in = os.Stdin
	}
	settings := lsp.Settings{CRDs: o.f.CRDPaths, Offline: o.f.NoCluster}
	if o.f.ConfigFlags.Context != nil {
		settings.Context = *o.f.ConfigFlags.Context
	}
	out := o.f.Streams.Out
	if o.f.rawOut != nil {
		out = o.f.rawOut // the protocol's messages are not lines
	}
	err := lsp.Serve(ctx, in, out, lsp.Options{
		Setup: func(s lsp.Settings) (*validate.Environment, error) {
			if slices.Contains(s.CRDs, "-") {
				return nil, errors.New("crds: - (standard input) carries the protocol here: name files or directories")
			}
			return checkEnvironment(o.f.withSettings(s))
		},
		Settings: settings,
		Log:      logw,
		Version:  Version,
	})
	if err != nil {
		return &ExitError{Code: 1, Err: err}
	}
	return nil
}

// withSettings is a factory like f with the language client's settings:
// its own catalog and clients, the CRDs and context the settings give.
func (f *Factory) withSettings(s lsp.Settings) *Factory {
	g := NewFactory(f.Streams)
	c, n := f.ConfigFlags, g.ConfigFlags
	n.CacheDir, n.KubeConfig, n.ClusterName, n.AuthInfoName, n.Context, n.Namespace = c.CacheDir, c.KubeConfig, c.ClusterName, c.AuthInfoName, c.Context, c.Namespace
	n.APIServer, n.TLSServerName, n.Insecure, n.CertFile, n.KeyFile, n.CAFile = c.APIServer, c.TLSServerName, c.Insecure, c.CertFile, c.KeyFile, c.CAFile
	n.BearerToken, n.Impersonate, n.ImpersonateUID, n.ImpersonateGroup, n.ImpersonateUserExtra = c.BearerToken, c.Impersonate, c.ImpersonateUID, c.ImpersonateGroup, c.ImpersonateUserExtra
	n.Username, n.Password, n.Timeout, n.DisableCompression, n.ProxyURL = c.Username, c.Password, c.Timeout, c.DisableCompression, c.ProxyURL
	if s.Context != "" {
		ctx := s.Context
		n.Context = &ctx
	}
	g.CRDPaths, g.NoCluster, g.IndexDir, g.KubernetesVersion = s.CRDs, s.Offline, f.IndexDir, f.KubernetesVersion
	return g
}
