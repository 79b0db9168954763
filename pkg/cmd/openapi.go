package cmd

import "github.com/spf13/cobra"

// NewCmdOpenAPI makes kubectl crd openapi.
func NewCmdOpenAPI(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "openapi [GROUP/VERSION | TYPE...]",
		Short: "Print the OpenAPI documents the API server publishes for CRDs",
		RunE:  func(*cobra.Command, []string) error { return notImplemented("openapi") },
	}
}
