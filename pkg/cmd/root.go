// Package cmd holds the kubectl crd command tree: one thin cobra command
// per verb, whose Options are completed, validated and run (command.go)
// with the verb's work done by its own package; the Factory of the flags
// every verb shares; and the process around them: exit codes, interrupts,
// profiling.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/kubectl-crd/kubectl-crd/internal/interrupt"
	"github.com/kubectl-crd/kubectl-crd/internal/profiling"
	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/spf13/cobra"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/cli-runtime/pkg/genericiooptions"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"

	// Every client auth plugin kubectl has (exec, OIDC, ...).
	_ "k8s.io/client-go/plugin/pkg/client/auth"
)

// newRootCommand builds the command tree shown as "kubectl crd".
func newRootCommand(f *factory.Factory) *cobra.Command {
	streams := f.Streams
	root := &cobra.Command{
		Use:   "crd",
		Short: "Client-side answers about CustomResourceDefinitions",
		Long: `kubectl crd reads CustomResourceDefinitions from a cluster (or, with --crds,
from local files) and answers on the client what the API server answers for
them: printer columns, schema documentation, validation and OpenAPI.`,
		Annotations:   map[string]string{cobra.CommandDisplayNameAnnotation: "kubectl crd"},
		SilenceErrors: true,
		SilenceUsage:  true,
		Run:           func(c *cobra.Command, _ []string) { _ = c.Help() },
	}
	root.SetIn(streams.In)
	root.SetOut(streams.Out)
	root.SetErr(streams.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &UsageError{Err: fmt.Errorf("%w\nSee '%s --help' for usage", err, c.CommandPath())}
	})

	flags := root.PersistentFlags()
	f.AddFlags(flags)
	prof := &profiling.Profile{}
	prof.AddFlags(flags)
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		// --kubernetes-version is the answers' version whatever the verb:
		// a version out of range is an error before anything runs.
		if err := f.ResolveAskedVersion(); err != nil {
			return &UsageError{Err: err}
		}
		if err := f.CheckSourceFlags(); err != nil {
			return &UsageError{Err: err}
		}
		quietServerLogs()
		if err := prof.Start(); err != nil {
			return err
		}
		f.OnCleanup(func() {
			if err := prof.Flush(); err != nil {
				fmt.Fprintf(streams.ErrOut, "error: %v\n", err)
			}
		})
		return nil
	}

	root.AddCommand(
		NewCmdGet(f),
		NewCmdExplain(f),
		NewCmdValidate(f),
		NewCmdOpenAPI(f),
		NewCmdDiff(f),
		NewCmdList(f),
		NewCmdMigrate(f),
		NewCmdConvert(f),
		NewCmdLSP(f),
		NewCmdDocs(f),
		NewCmdSample(f),
		NewCmdTest(f),
		NewCmdCost(f),
		NewCmdLint(f),
		NewCmdVersion(f),
		NewCmdCompletion(f),
	)
	for _, c := range root.Commands() {
		if c.Name() != "version" && c.Name() != "completion" {
			c.Long += "\n\nReference: " + docsURL + c.Name() + ".md"
		}
	}
	root.CompletionOptions.DisableDefaultCmd = true
	f.RegisterFlagCompletions(root)
	return root
}

// Run runs the command line args and returns the process exit code. Errors
// are printed as kubectl prints them.
func Run(args []string, streams genericiooptions.IOStreams) int {
	quietUnhandledErrors()
	// Standard output in whole lines, so that an interrupt ends it
	// between two; the language server's protocol is not lines, and goes
	// out as it is written.
	out := interrupt.NewLineWriter(streams.Out)
	f := factory.New(genericiooptions.IOStreams{In: streams.In, Out: out, ErrOut: streams.ErrOut})
	f.RawOut = streams.Out
	f.Interrupts = interrupt.Handle(out, f.Cleanup)
	defer f.Interrupts.Stop()
	rest.SetDefaultWarningHandler(f)
	root := newRootCommand(f)
	root.SetArgs(args)
	err := root.Execute()
	if ferr := out.Flush(); err == nil {
		err = ferr
	}
	f.Cleanup()
	klog.Flush()
	return printError(streams.ErrOut, err)
}

// quietUnhandledErrors keeps the errors client libraries log and then
// return anyway (failed discovery, retries) out of the user's way: the
// returned error is printed once, and the logged ones show at -v=2.
func quietUnhandledErrors() {
	utilruntime.ErrorHandlers = []utilruntime.ErrorHandler{
		func(_ context.Context, err error, msg string, keysAndValues ...any) {
			klog.V(2).InfoS(msg, append([]any{"err", err}, keysAndValues...)...)
		},
	}
}

// quietServerLogs keeps the operational logs of the server code run on
// the client (admission plugins and their informers: "caches are
// synced") out of the user's output unless -v asks for logs: at -v=0,
// klog writes only errors, to stderr.
func quietServerLogs() {
	if klog.V(1).Enabled() {
		return
	}
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
}

// docsURL is where each verb's reference page is.
const docsURL = "https://github.com/kubectl-crd/kubectl-crd/blob/main/docs/"

// printError prints a verb's error as kubectl prints errors, and returns
// the exit code (see exitCodeOf).
func printError(w io.Writer, err error) int {
	code := exitCodeOf(err)
	var ee *ExitError
	if err == nil || errors.As(err, &ee) {
		return code
	}
	// kubectl reads a proxy's refused connection ("connection refused" in
	// the message) as the server's; say whose it is.
	var proxy *factory.ProxyError
	if errors.As(err, &proxy) {
		fmt.Fprintf(w, "Unable to connect to the server: %v\n", proxy)
		return code
	}
	cmdutil.BehaviorOnFatal(func(msg string, _ int) {
		if msg != "" && msg[len(msg)-1] != '\n' {
			msg += "\n"
		}
		fmt.Fprint(w, msg)
	})
	defer cmdutil.DefaultBehaviorOnFatal()
	cmdutil.CheckErr(err)
	return code
}
