// Command kubectl-crd is the kubectl plugin "kubectl crd".
package main

import (
	"os"
	"runtime/debug"

	"github.com/kubectl-crd/kubectl-crd/pkg/cmd"
	"k8s.io/cli-runtime/pkg/genericiooptions"
)

func main() {
	if os.Getenv("GOGC") == "" {
		// A short-lived command that decodes a lot (lists of objects,
		// CRD files) and keeps little: collecting less often costs a
		// bounded amount of memory and saves time.
		debug.SetGCPercent(400)
	}
	os.Exit(cmd.Run(os.Args[1:], genericiooptions.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
}
