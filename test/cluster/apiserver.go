package cluster

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/spf13/pflag"
	extensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	"k8s.io/apiextensions-apiserver/pkg/cmd/server/options"
	generatedopenapi "k8s.io/apiextensions-apiserver/pkg/generated/openapi"
	"k8s.io/apimachinery/pkg/util/wait"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/apiserver/pkg/util/openapi"
	"k8s.io/client-go/rest"
)

// startAPIServer starts an apiextensions-apiserver over etcdURL, serving
// TLS on a free loopback port. It returns the loopback client config (a
// privileged token and the serving CA) and a channel closed when the server
// has stopped.
func startAPIServer(ctx context.Context, dir, etcdURL, fakeKubeconfig string, log io.Writer) (*rest.Config, <-chan struct{}, error) {
	o := options.NewCustomResourceDefinitionsServerOptions(log, log)
	fs := pflag.NewFlagSet("apiextensions-apiserver", pflag.ContinueOnError)
	o.AddFlags(fs)

	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, nil, err
	}
	o.RecommendedOptions.SecureServing.Listener = listener
	o.RecommendedOptions.SecureServing.BindPort = listener.Addr().(*net.TCPAddr).Port
	o.RecommendedOptions.SecureServing.ServerCert.CertDirectory = dir
	o.RecommendedOptions.SecureServing.ExternalAddress = net.ParseIP("127.0.0.1")

	// The flags upstream's integration fixtures use: no delegated
	// authentication or authorization, no admission that needs a full
	// kube-apiserver.
	err = fs.Parse([]string{
		"--etcd-servers", etcdURL,
		"--etcd-prefix", etcdPrefix,
		"--authentication-skip-lookup",
		"--authentication-kubeconfig", fakeKubeconfig,
		"--authorization-kubeconfig", fakeKubeconfig,
		"--kubeconfig", fakeKubeconfig,
		"--enable-priority-and-fairness=false",
		"--disable-admission-plugins", "NamespaceLifecycle,MutatingAdmissionWebhook,ValidatingAdmissionWebhook,ValidatingAdmissionPolicy,MutatingAdmissionPolicy",
	})
	if err != nil {
		return nil, nil, err
	}
	if err := o.ServerRunOptions.ComponentGlobalsRegistry.Set(); err != nil {
		return nil, nil, err
	}
	if err := o.Complete(); err != nil {
		return nil, nil, err
	}
	if err := o.Validate(); err != nil {
		return nil, nil, err
	}
	config, err := o.Config()
	if err != nil {
		return nil, nil, err
	}
	// /openapi/v2 as kube-apiserver serves it (the v3 config is set by
	// Config).
	defs := openapi.GetOpenAPIDefinitionsWithoutDisabledFeatures(generatedopenapi.GetOpenAPIDefinitions)
	config.GenericConfig.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(defs, openapinamer.NewDefinitionNamer(extensionsapiserver.Scheme))

	server, err := config.Complete().New(genericapiserver.NewEmptyDelegate())
	if err != nil {
		return nil, nil, err
	}
	stopped := make(chan struct{})
	runErr := make(chan error, 1)
	go func() {
		defer close(stopped)
		if err := server.GenericAPIServer.PrepareRun().RunWithContext(ctx); err != nil {
			runErr <- err
		}
	}()

	loopback := rest.CopyConfig(server.GenericAPIServer.LoopbackClientConfig)
	client, err := rest.UnversionedRESTClientFor(withJSON(loopback))
	if err != nil {
		return nil, nil, err
	}
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		select {
		case err := <-runErr:
			return false, err
		default:
		}
		status := 0
		client.Get().AbsPath("/healthz").Do(ctx).StatusCode(&status)
		return status == 200, nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("apiextensions-apiserver did not become healthy: %w", err)
	}
	return loopback, stopped, nil
}

func withJSON(c *rest.Config) *rest.Config {
	c = rest.CopyConfig(c)
	c.ContentConfig = rest.ContentConfig{NegotiatedSerializer: extensionsapiserver.Codecs.WithoutConversion()}
	return c
}
