// Command kubectl is kubectl built from k8s.io/kubectl's own packages, so
// that tests can compare with kubectl's behaviour (and run kubectl crd
// through kubectl's plugin mechanism) on a machine without a kubectl binary.
package main

import (
	"k8s.io/component-base/cli"
	"k8s.io/kubectl/pkg/cmd"
	"k8s.io/kubectl/pkg/cmd/util"
)

func main() {
	command := cmd.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		util.CheckErr(err)
	}
}
