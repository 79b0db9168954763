package cluster

import (
	"context"
	"fmt"
	"io"

	"k8s.io/apiserver/pkg/storage/storagebackend"
	"k8s.io/client-go/rest"
	kubeapiservertesting "k8s.io/kubernetes/cmd/kube-apiserver/app/testing"
)

// startAPIServer starts kube-apiserver over etcdURL, serving TLS on a free
// loopback port, with every built-in group and the CRD and aggregation
// layers, as a cluster serves them. It returns the admin client config
// and a function that stops the server and removes its files.
//
// Admission plugins that need controllers this process does not run are
// off: ServiceAccount (token controller) and NamespaceLifecycle (objects
// go to namespaces that were never created, as the tests have always
// done).
//
// emulated, when not "", is the Kubernetes version the server emulates
// (--emulated-version): see emulate.
func startAPIServer(ctx context.Context, dir, etcdURL, emulated string, log io.Writer) (*rest.Config, func(), error) {
	storage := storagebackend.NewDefaultConfig(etcdPrefix, nil)
	storage.Transport.ServerList = []string{etcdURL}
	r := &runner{log: log, dir: dir}
	flags := []string{
		"--disable-admission-plugins=ServiceAccount,NamespaceLifecycle",
		"--enable-priority-and-fairness=false",
	}
	var restore func()
	if emulated != "" {
		flags = append(flags, "--emulated-version=kube="+emulated)
		var err error
		if restore, err = emulate(emulated); err != nil {
			return nil, nil, err
		}
	}
	if err := locateTestServer(); err != nil {
		return nil, nil, err
	}
	var server kubeapiservertesting.TestServer
	err := r.run(func() (err error) {
		server, err = kubeapiservertesting.StartTestServer(r, kubeapiservertesting.NewDefaultTestServerOptions(), flags, storage)
		return err
	})
	stop := func() {
		if server.TearDownFn != nil {
			server.TearDownFn()
		}
		r.stop()
		if restore != nil {
			restore()
		}
	}
	if err != nil {
		stop()
		return nil, nil, fmt.Errorf("kube-apiserver did not start: %w", err)
	}
	return rest.CopyConfig(server.ClientConfig), stop, nil
}
