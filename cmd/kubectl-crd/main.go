// Command kubectl-crd is the kubectl plugin "kubectl crd".
package main

import (
	"os"

	// Initialised before the heavy packages (Go initialises packages in
	// import-path order, each once its imports are): no garbage is collected
	// while packages initialise, memory is not profiled, and kubectl's
	// English catalogues are not parsed at start-up.
	_ "github.com/kubectl-crd/kubectl-crd/internal/startup"
	_ "github.com/kubectl-crd/kubectl-crd/pkg/cmd/lang"

	"github.com/kubectl-crd/kubectl-crd/pkg/cmd"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func main() {
	os.Exit(cmd.Run(os.Args[1:], genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
}
