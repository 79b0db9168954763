// Command kubectl-crd is the kubectl plugin "kubectl crd".
package main

import (
	"os"

	"github.com/kubectl-crd/kubectl-crd/pkg/cmd"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func main() {
	os.Exit(cmd.Run(os.Args[1:], genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
}
