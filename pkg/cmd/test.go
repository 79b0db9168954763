package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/crdtest"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/kubectl-crd/kubectl-crd/pkg/kubeversion"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"github.com/kubectl-crd/kubectl-crd/pkg/policytest"
	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/util/version"
)

// TestOptions are the options of kubectl crd test.
type TestOptions struct {
	f        *factory.Factory // the sources and the cluster, read by Run
	Output   string
	Match    string
	Policies []string
	// FeatureGates are paths of FeatureGate objects (openshift/api's
	// payload-manifests/featuregates).
	FeatureGates []string
	// FileName is the name of Kyverno Test files in directories.
	FileName string

	paths  []string
	src    manifest.Sources
	out    io.Writer
	kube   *version.Version
	runner crdtest.Runner
	// noCluster: no kubeconfig names a cluster, so none is asked (a
	// Kyverno Test of built-in kinds needs none; a suite's CRD is then
	// looked for in --crds only).
	noCluster bool
	runErr    error
}

// NewCmdTest makes kubectl crd test.
func NewCmdTest(f *factory.Factory) *cobra.Command {
	o := &TestOptions{Output: "text"}
	c := &cobra.Command{
		Use:   "test PATH... [--crds PATH] [--run REGEXP] [-o text|json|junit]",
		Short: "Run CRD test suites and Kyverno Tests of admission policies as the API server would answer them",
		Long: `Run CRD test suites (openshift/api's format: crdName, onCreate and
onUpdate cases) without a control plane: each case is the API server's own
create, update and status update of the object, its error the one the
server returns. CRDs come from --crds or the cluster.

Kyverno CLI Test files (kyverno-test.yaml) are run too, for their results
of ValidatingAdmissionPolicies and MutatingAdmissionPolicies: each answered
by the server's own admission plugins (fail: denied; pass: evaluated and
admitted; skip: no binding matches).

PATH is a file, a directory (read recursively), or - for standard input.

Exit status: 0 when every case passes, 1 when one fails, 2 when a suite
or a case cannot run.`,
		Example: `  kubectl crd test examples/tests --crds examples/crds
  kubectl crd test tests/ --crds config/crd/bases -o junit > crd-tests.xml
  kubectl crd test tests/ --crds crds/ --run 'CronTab/.*replicas'

  # Kyverno Tests of admission policies, answered by the server's plugins
  kubectl crd test policies/ --crds crds/`,
		RunE: runVerb(f, o),
	}
	c.Flags().StringVarP(&o.Output, "output", "o", o.Output, "Output format: "+strings.Join(crdtest.Formats, ", ")+".")
	c.Flags().StringArrayVar(&o.Policies, "policies", nil, "Files, directories, URLs or git:REV:PATH of admission policies, their bindings, params and namespaces: each create and update is answered through them (expectedError can match a denial).")
	c.Flags().StringArrayVar(&o.FeatureGates, "feature-gates", nil, "Files or directories of FeatureGate objects (openshift/api's payload-manifests/featuregates): which feature set enables which gate, for suites whose CRD has a file per feature set.")
	c.Flags().StringVar(&o.Match, "run", "", "Run only the cases whose SUITE/CASE name (TEST/POLICY/RESOURCE of a Kyverno Test's results) matches this regular expression.")
	c.Flags().StringVar(&o.FileName, "file-name", policytest.FileName, "The name of the Kyverno Test files run in directories (as kyverno test's --file-name).")
	_ = c.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(crdtest.Formats, cobra.ShellCompDirectiveNoFileComp))
	return c
}

// Complete makes the catalog the suites' CRDs are found in; the verdicts
// are those of the Kubernetes version answered as.
func (o *TestOptions) Complete(f *factory.Factory, _ *cobra.Command, args []string) error {
	o.paths, o.src, o.out, o.f = args, f.Sources(), f.Streams.Out, f
	if o.Match != "" {
		o.runner.Match, o.runErr = regexp.Compile(o.Match)
	}
	return nil
}

// load resolves the Kubernetes version and the catalog.
func (o *TestOptions) load() error {
	o.noCluster = o.f.NoClusterConfigured()
	var err error
	if o.kube, err = o.f.AnswerAs(o.noCluster); err != nil {
		return err
	}
	o.runner.Catalog, err = o.f.Catalog(o.noCluster)
	return err
}

// admission starts the admission policies of --policies (none without:
// a suite's verdicts do not depend on a cluster's policies), their
// warnings said once on stderr.
func (o *TestOptions) admission(ctx context.Context) (*policies.Chain, error) {
	if len(o.Policies) == 0 {
		return nil, nil
	}
	env, _, err := o.f.Environment(o.noCluster, nil)
	if err != nil {
		return nil, err
	}
	a, err := env.SetUpAdmission(ctx, validate.AdmissionSetting{Policies: o.Policies, Sources: o.src, User: o.f.User(), Warn: o.f.Warn})
	var files *validate.PolicyFilesError
	if errors.As(err, &files) {
		return nil, &factory.FlagError{Flag: "--policies", Err: files.Err}
	}
	return a.Chain, err
}

// Validate checks the arguments and flags.
func (o *TestOptions) Validate() error {
	switch {
	case len(o.paths) == 0:
		return errors.New("no suites: name suite files or directories (- for stdin)")
	case !slices.Contains(crdtest.Formats, o.Output):
		return fmt.Errorf("--output must be one of %s, not %q", strings.Join(crdtest.Formats, ", "), o.Output)
	case o.runErr != nil:
		return fmt.Errorf("--run: %w", o.runErr)
	}
	return nil
}

// Run reads the suites and Tests, runs them and prints the verdicts.
func (o *TestOptions) Run(ctx context.Context) error {
	if err := o.load(); err != nil {
		return err
	}
	docs, err := manifest.ReadPaths(o.paths, true, o.src)
	if err != nil {
		return err
	}
	suites := crdtest.Suites(docs)
	tests := policytest.Tests(docs, o.paths, o.FileName)
	if len(suites) == 0 && len(tests) == 0 {
		return fmt.Errorf("no test suites (YAML documents with tests:) nor Kyverno Tests (%s) in %s", o.FileName, strings.Join(o.paths, ", "))
	}
	if len(o.FeatureGates) > 0 {
		if o.runner.FeatureGates, err = crdtest.ReadFeatureGates(o.FeatureGates, o.src); err != nil {
			return &factory.FlagError{Flag: "--feature-gates", Err: err}
		}
	}
	if o.runner.Admission, err = o.admission(ctx); err != nil {
		return err
	}
	defer o.runner.Admission.Close()
	results := o.runner.Run(ctx, suites)
	var notes []string
	if len(tests) > 0 {
		env, _, err := o.f.Environment(o.noCluster, nil)
		if err != nil {
			return err
		}
		policyRunner := policytest.Runner{Env: env, Sources: o.src, User: o.f.User(), Match: o.runner.Match}
		more, said := policyRunner.Run(ctx, tests)
		results, notes = append(results, more...), said
	}
	switch {
	case len(results) == 0 && o.runner.Match != nil:
		// --run kept nothing: nothing was checked, which must not pass.
		return fmt.Errorf("no case matches --run %q in %s", o.runner.Match, strings.Join(o.paths, ", "))
	case len(results) == 0:
		for _, n := range notes {
			fmt.Fprintf(o.f.Streams.ErrOut, "note: %s\n", n)
		}
		// The notes say what was left alone (Kyverno's own policies);
		// a Test without results, or suites without cases, say nothing.
		return fmt.Errorf("nothing to run in %s: no case of a CRD suite and no result of an admission policy", strings.Join(o.paths, ", "))
	}
	given := crdtest.GivenBy(suites).Add(policytest.Given(tests))
	rep := crdtest.Report{KubernetesVersion: kubeversion.OrNewest(o.kube).String(), Cases: results, Summary: crdtest.Summarize(results, given), Notes: notes}
	if err := crdtest.Write(o.out, o.Output, rep, suites); err != nil {
		return err
	}
	switch {
	case rep.Summary.Errors > 0:
		return &ExitError{Code: 2}
	case rep.Summary.Failed > 0:
		return findings
	}
	return nil
}
