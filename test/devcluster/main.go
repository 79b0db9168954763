// Command devcluster runs a throwaway API server for CustomResourceDefinitions
// on loopback, loads the example CRDs and objects into it, and prints how to
// point kubectl at it. Ctrl-C stops it and removes everything it created.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/kubectl-crd/kubectl-crd/test/cluster"
)

func main() {
	var load []string
	flag.Func("load", "file or directory of CRDs and objects to create; repeatable (default: examples/crds and examples/objects/valid)", func(s string) error { load = append(load, s); return nil })
	flag.Parse()
	if len(load) == 0 {
		load = []string{"examples/crds", "examples/objects/valid"}
	}
	if err := run(load); err != nil {
		fmt.Fprintf(os.Stderr, "devcluster: %v\n", err)
		os.Exit(1)
	}
}

func run(load []string) error {
	c, err := cluster.Start(cluster.Options{})
	if err != nil {
		return err
	}
	defer c.Stop()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	n, err := c.Load(ctx, load...)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "loaded %d CRDs and %d objects from %s\n", n.CRDs, n.Objects, strings.Join(load, ", "))
	fmt.Printf("export KUBECONFIG=%s\n", c.Kubeconfig)
	fmt.Fprintln(os.Stderr, "serving; press Ctrl-C to stop")
	<-ctx.Done()
	fmt.Fprintln(os.Stderr, "stopping")
	return nil
}
