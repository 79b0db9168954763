package cmd

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/kubectl-crd/kubectl-crd/internal/fast"

	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
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
	// FastPaths tells whether the process takes the second paths for
	// speed (internal/fast; KUBECTL_CRD_FAST=0 turns them off).
	FastPaths bool `json:"fastPaths"`
}

// VersionOptions are the options of kubectl crd version.
type VersionOptions struct {
	Output string

	args []string
	out  io.Writer
}

// NewCmdVersion makes kubectl crd version.
func NewCmdVersion(f *factory.Factory) *cobra.Command {
	o := &VersionOptions{}
	c := &cobra.Command{
		Use:   "version",
		Short: "Print the version of kubectl crd",
		RunE:  runVerb(f, o),
	}
	c.Flags().StringVarP(&o.Output, "output", "o", "", "One of 'yaml' or 'json'.")
	return c
}

// Complete takes the output stream.
func (o *VersionOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.args, o.out = args, f.Streams.Out
	return nil
}

// Validate checks the arguments and the output format.
func (o *VersionOptions) Validate() error {
	switch {
	case len(o.args) > 0:
		return fmt.Errorf("unexpected arguments %q: version takes none", o.args)
	case o.Output != "" && o.Output != "json" && o.Output != "yaml":
		return fmt.Errorf("--output must be 'yaml' or 'json'")
	}
	return nil
}

// Run prints the version.
func (o *VersionOptions) Run(context.Context) error {
	oldest, newest := kubeversion.Range()
	info := VersionInfo{Version: Version, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		KubernetesVersions: oldest.String() + ".." + newest.String(), FastPaths: fast.Enabled()}
	switch o.Output {
	case "json":
		return report.WriteJSON(o.out, info)
	case "yaml":
		b, _ := yaml.Marshal(info)
		fmt.Fprint(o.out, string(b))
	default:
		paths := "on (KUBECTL_CRD_FAST=0 turns them off)"
		if !info.FastPaths {
			paths = "off (KUBECTL_CRD_FAST=0)"
		}
		fmt.Fprintf(o.out, "kubectl-crd version: %s\nGo version: %s\nPlatform: %s\nAnswers as Kubernetes: %s\nFast paths: %s\n", info.Version, info.GoVersion, info.Platform, info.KubernetesVersions, paths)
	}
	return nil
}
