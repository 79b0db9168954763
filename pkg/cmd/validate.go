package cmd

import "github.com/spf13/cobra"

// NewCmdValidate makes kubectl crd validate.
func NewCmdValidate(f *Factory) *cobra.Command {
	return &cobra.Command{
		Use:   "validate -f PATH",
		Short: "Check local objects as the API server would, before apply",
		RunE:  func(*cobra.Command, []string) error { return notImplemented("validate") },
	}
}
