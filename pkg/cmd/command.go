package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/kubectl-crd/kubectl-crd/pkg/factory"
	"github.com/spf13/cobra"
	"k8s.io/klog/v2"
)

// verb is every command of kubectl crd, in the shape of kubectl's own:
// Complete fills the options from the flags and the arguments, and reads
// nothing; Validate checks them and changes nothing; Run reads what it
// needs (files, URLs, git revisions, the cluster: the catalog, the
// Kubernetes version) and does the work. run calls them in that order, so
// that a usage error is said before anything is read. (A TYPE that names
// a category, which migrate takes only with --all, is known once the
// catalog is read: Run says it as a usage error.)
type verb interface {
	Complete(f *factory.Factory, c *cobra.Command, args []string) error
	Validate() error
	Run(ctx context.Context) error
}

// runVerb is the RunE of a verb's command: Complete, Validate, Run. A
// Validate error is a usage error.
func runVerb(f *factory.Factory, o verb) func(*cobra.Command, []string) error {
	return func(c *cobra.Command, args []string) error {
		trace(f, "Complete")
		if err := o.Complete(f, c, args); err != nil {
			return err
		}
		trace(f, "Validate")
		if err := o.Validate(); err != nil {
			return &UsageError{Err: err}
		}
		trace(f, "Run")
		return o.Run(contextOf(c))
	}
}

// UsageError is a command line kubectl crd cannot act on: a flag, an
// argument or a combination of them. It exits 2, as does every error that
// stops a verb from doing its job; 1 is kept for findings.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }

func (e *UsageError) Unwrap() error { return e.Err }

// ExitError ends a verb that has printed all it has to say with a code of
// its own: 1 for findings (invalid objects, breaking changes, failed
// conversions), 2 for documents that could not be checked, or 128 + a
// signal.
type ExitError struct{ Code int }

func (e *ExitError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// findings is the exit of a verb that found something (code 1), with
// nothing more to print.
var findings = &ExitError{Code: 1}

// exitCode is the process's exit code for a verb's error: 0 for none, an
// ExitError's own code, else 2 (the job could not be done: a usage error,
// an input that cannot be read, a cluster that cannot answer).
func exitCodeOf(err error) int {
	var ee *ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.Code
	}
	return 2
}

func contextOf(c *cobra.Command) context.Context {
	if ctx := c.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// trace tells the factory's Trace, and the log at -v=5, which step of a
// verb starts.
func trace(f *factory.Factory, step string) {
	klog.V(5).InfoS("Verb step", "step", step)
	if f.Trace != nil {
		f.Trace(step)
	}
}
