package cmd

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// Version is set at build time:
// -ldflags "-X github.com/kubectl-crd/kubectl-crd/pkg/cmd.Version=v1.2.3".
var Version = "dev"

// VersionInfo is what kubectl crd version prints.
type VersionInfo struct {
	Version   string `json:"version"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
	// KubernetesVersions are the versions kubectl crd answers as
	// (--kubernetes-version), oldest..newest.
	KubernetesVersions string `json:"kubernetesVersions"`
}

// NewCmdVersion makes kubectl crd version.
func NewCmdVersion(f *Factory) *cobra.Command {
	var output string
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the version of kubectl crd",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			oldest, newest := kubeversion.Range()
			info := VersionInfo{Version: Version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
				KubernetesVersions: oldest.String() + ".." + newest.String()}
			out := f.Streams.Out
			switch output {
			case "":
				fmt.Fprintf(out, "kubectl-crd version: %s\nGo version: %s\nPlatform: %s\nAnswers as Kubernetes: %s\n", info.Version, info.GoVersion, info.Platform, info.KubernetesVersions)
			case "json":
				b, _ := json.MarshalIndent(info, "", "  ")
				fmt.Fprintf(out, "%s\n", b)
			case "yaml":
				b, _ := yaml.Marshal(info)
				fmt.Fprint(out, string(b))
			default:
				return fmt.Errorf("--output must be 'yaml' or 'json'")
			}
			return nil
		},
	}
	c.Flags().StringVarP(&output, "output", "o", "", "One of 'yaml' or 'json'.")
	return c
}
