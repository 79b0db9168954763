package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/catalog"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/kubectl-crd/kubectl-crd/pkg/lint"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/report"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/version"
)

// LintOptions are the options of kubectl crd lint.
type LintOptions struct {
	f         *factory.Factory // the sources and the cluster, read by Run
	Filenames []string
	Output    string
	Profile   string
	Checks    []string
	All       bool

	types   []string
	sources manifest.Sources
	out     io.Writer
	kube    *version.Version
}

// NewCmdLint makes kubectl crd lint.
func NewCmdLint(f *factory.Factory) *cobra.Command {
	o := &LintOptions{Output: "text", Profile: "crd"}
	c := &cobra.Command{
		Use:   "lint [PATH... | -f PATH... | TYPE...] [-o text|json|sarif|github|markdown] [--profile crd|kube] [--check NAME=SEVERITY]",
		Short: "Check CRD schemas against the Kubernetes API conventions, each finding at its field with the fix",
		Long: `Check every version of each CRD against the Kubernetes API conventions, on
the schema the API server sees, whatever wrote it: the checks of
kube-api-linter that a schema shows (named as it names them: maxlength,
nofloats, ssatags, conditions, ...) and what only a schema shows (printer
columns that name no field, enum values the field refuses, ...). Each
finding is at the line and column of its field in the file, with the fix;
an unbounded field a CEL rule iterates carries the bound kubectl crd cost
finds. CRDs come from PATHs (files, directories, URLs, git:REV:PATH, -;
or -f), or the TYPEs (all without them) of --crds or the cluster. The
checks and their reasons: docs/lint.md.

Exit status: 0 when no finding is at error severity, 1 when one is, 2
when the input cannot be read.`,
		Example: `  kubectl crd lint config/crd/bases
  kubectl crd lint -f crds/ --profile kube -o sarif > lint.sarif
  kubectl crd lint -f crds/ --check nobools=warning --check ssatags=ignore`,
		RunE:              runVerb(f, o),
		ValidArgsFunction: completeTypes(f),
	}
	c.Flags().StringArrayVarP(&o.Filenames, "filename", "f", nil, "Files, directories, URLs, git:REV:PATH or Helm charts of CRDs to check (- for stdin).")
	c.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Output format: "+strings.Join(lint.Formats, ", ")+".")
	c.Flags().StringVar(&o.Profile, "profile", o.Profile, "Default severities: crd (what matters for CRDs) or kube (the conventions as for built-in APIs).")
	c.Flags().StringArrayVar(&o.Checks, "check", nil, "NAME=error|warning|info|ignore: the severity of a check (repeatable).")
	c.Flags().BoolVar(&o.All, "all", false, "With -o markdown, every finding (by default a summary that fits a pull request's comment: the counts, and the first findings of each check).")
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(lint.Formats, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("profile", cobra.FixedCompletions(lint.Profiles, cobra.ShellCompDirectiveNoFileComp))
	_ = c.RegisterFlagCompletionFunc("check", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return report.CheckSettings(lint.CheckNames(), toComplete), cobra.ShellCompDirectiveNoFileComp
	})
	return c
}

// Complete keeps the arguments; nothing is read before Validate.
func (o *LintOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.types, o.sources, o.out, o.f = args, f.Sources(), f.Streams.Out, f
	return nil
}

// Validate checks the arguments and flags. An argument is a PATH when it
// looks like one (-, a slash, a .yaml, .yml or .json name, a URL or
// git:REV:PATH) or names a file or directory; else a TYPE.
func (o *LintOptions) Validate() error {
	var types []string
	for _, a := range o.types {
		if isPath(a) {
			o.Filenames = append(o.Filenames, a)
		} else {
			types = append(types, a)
		}
	}
	o.types = types
	switch {
	case len(o.Filenames) > 0 && len(o.types) > 0:
		return fmt.Errorf("unexpected arguments %q: the PATHs name the CRDs (TYPEs are looked up in --crds or the cluster)", o.types)
	case !slices.Contains(lint.Formats, o.Output):
		return fmt.Errorf("--output must be one of %s, not %q", strings.Join(lint.Formats, ", "), o.Output)
	}
	return lint.CheckOptions(lint.Options{Profile: o.Profile, Checks: o.Checks})
}

// Run reads the CRDs, checks them and reports.
func (o *LintOptions) Run(ctx context.Context) error {
	// The server's checks lint runs (a default it refuses) answer as the
	// version answered as: files need no cluster to say it.
	var err error
	if o.kube, err = o.f.AnswerAs(len(o.Filenames) > 0); err != nil {
		return err
	}
	crds, err := o.crds(ctx)
	if err != nil {
		return err
	}
	if len(crds) == 0 {
		return errors.New("no CustomResourceDefinitions to check")
	}
	found, err := lint.Lint(crds, lint.Options{Profile: o.Profile, Checks: o.Checks})
	if err != nil {
		return err
	}
	if err := lint.Write(o.out, found, lint.Output{Format: o.Output, Version: Version, KubernetesVersion: kubeversion.OrNewest(o.kube).String(), All: o.All}); err != nil {
		return err
	}
	if lint.Failed(found) {
		return findings
	}
	return nil
}

func isPath(arg string) bool {
	if arg == "-" || strings.ContainsAny(arg, "/:") {
		return true
	}
	switch strings.ToLower(filepath.Ext(arg)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	_, err := os.Stat(arg)
	return err == nil
}

// crds are the CRDs of -f, with their documents (for positions), or
// those the TYPEs name.
func (o *LintOptions) crds(ctx context.Context) ([]catalog.InputCRD, error) {
	if len(o.Filenames) == 0 {
		cat, err := o.f.Catalog(false)
		if err != nil {
			return nil, err
		}
		named, err := cat.Named(ctx, o.types)
		if err != nil {
			return nil, err
		}
		out := make([]catalog.InputCRD, len(named))
		for i, c := range named {
			out[i] = catalog.InputCRD{CRD: &catalog.CRD{CustomResourceDefinition: c}}
		}
		return out, nil
	}
	docs, err := manifest.ReadPaths(o.Filenames, true, o.sources)
	if err != nil {
		return nil, &factory.FlagError{Flag: "-f", Err: err}
	}
	input, _, err := catalog.Split(docs)
	return input, err
}
