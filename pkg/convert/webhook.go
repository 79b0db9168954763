package convert

import (
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"net/url"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/rest"
)

// ServerTimeout is how long kube-apiserver waits for a conversion webhook.
const ServerTimeout = 30 * time.Second

// Webhook says how to reach a CRD's conversion webhook from this machine.
// Whatever it changes, the request, TLS verification against the CRD's
// caBundle and the checks of the answer stay the server's.
type Webhook struct {
	// URL, when set, is where the webhook answers (https only, as the
	// server calls webhooks): requests are sent there while TLS is still
	// verified against the name the CRD's clientConfig gives (the URL's
	// host, or NAME.NAMESPACE.svc for a service), so a certificate the
	// cluster would refuse is refused here too. A path in URL replaces
	// the clientConfig's path.
	URL string
	// CA is PEM of certificates trusted besides the CRD's caBundle (a
	// webhook run locally, with its own CA).
	CA []byte
	// Timeout bounds each call; 0 or more than ServerTimeout is the
	// server's ServerTimeout.
	Timeout time.Duration
}

// Validate checks the URL and the CA.
func (w Webhook) Validate() error {
	if w.URL != "" {
		if u, err := url.Parse(w.URL); err != nil || u.Scheme != "https" || u.Host == "" {
			return fmt.Errorf("--webhook-url %q: give https://HOST:PORT[/PATH]: the server calls webhooks over TLS only", w.URL)
		}
	}
	if len(w.CA) > 0 && !x509.NewCertPool().AppendCertsFromPEM(w.CA) {
		return fmt.Errorf("--webhook-ca: no PEM certificate in it")
	}
	return nil
}

func (w Webhook) timeout() time.Duration {
	if w.Timeout <= 0 || w.Timeout > ServerTimeout {
		return ServerTimeout
	}
	return w.Timeout
}

// target is what the server's converter is built from: the CRD (a copy
// whose clientConfig has URL's path, when URL has one), where a service
// answers, and, when the webhook is a service and no URL says where it
// answers, why it cannot be called from here.
type target struct {
	crd         *apiextensionsv1.CustomResourceDefinition
	services    *serviceAddress
	unreachable error
}

func (w Webhook) target(crd *apiextensionsv1.CustomResourceDefinition) (target, error) {
	conv := crd.Spec.Conversion
	if conv.Webhook == nil || conv.Webhook.ClientConfig == nil {
		return target{}, fmt.Errorf("CustomResourceDefinition %s: the Webhook strategy without spec.conversion.webhook.clientConfig", crd.Name)
	}
	cc := conv.Webhook.ClientConfig
	if w.URL == "" {
		t := target{crd: crd, services: &serviceAddress{}}
		if svc := cc.Service; svc != nil {
			t.unreachable = &UnreachableServiceError{CRD: crd.Name, Service: *svc}
		}
		return t, nil
	}
	u, err := url.Parse(w.URL)
	if err != nil {
		return target{}, err
	}
	out := crd.DeepCopy()
	cc = out.Spec.Conversion.Webhook.ClientConfig
	if u.Path != "" {
		if cc.Service != nil {
			path := u.Path
			cc.Service.Path = &path
		} else if cc.URL != nil {
			to, err := url.Parse(*cc.URL)
			if err != nil {
				return target{}, fmt.Errorf("CustomResourceDefinition %s: clientConfig.url: %w", crd.Name, err)
			}
			to.Path = u.Path
			s := to.String()
			cc.URL = &s
		}
	}
	return target{crd: out, services: &serviceAddress{host: u.Host}}, nil
}

// wrapper adjusts the client the server's converter makes for the
// webhook: its timeout, the CA, and, with URL, where it connects.
func (w Webhook) wrapper() webhook.AuthenticationInfoResolverWrapper {
	adjust := func(cfg *rest.Config, err error) (*rest.Config, error) {
		if err != nil {
			return nil, err
		}
		cfg = rest.CopyConfig(cfg)
		cfg.Timeout = w.timeout()
		if len(w.CA) > 0 {
			// The server appends the CRD's caBundle to this.
			cfg.TLSClientConfig.CAData = append(append([]byte(nil), w.CA...), cfg.TLSClientConfig.CAData...)
		}
		if w.URL != "" {
			u, _ := url.Parse(w.URL)
			address := hostPort(u)
			var d net.Dialer
			cfg.Dial = func(ctx context.Context, network, _ string) (net.Conn, error) {
				return d.DialContext(ctx, network, address)
			}
		}
		return cfg, nil
	}
	return func(delegate webhook.AuthenticationInfoResolver) webhook.AuthenticationInfoResolver {
		return &webhook.AuthenticationInfoResolverDelegator{
			ClientConfigForFunc: func(hostPort string) (*rest.Config, error) {
				return adjust(delegate.ClientConfigFor(hostPort))
			},
			ClientConfigForServiceFunc: func(name, namespace string, port int) (*rest.Config, error) {
				return adjust(delegate.ClientConfigForService(name, namespace, port))
			},
		}
	}
}

func hostPort(u *url.URL) string {
	if u.Port() == "" {
		return net.JoinHostPort(u.Hostname(), "443")
	}
	return u.Host
}

// serviceAddress answers the converter's question where a service is:
// at --webhook-url's host.
type serviceAddress struct{ host string }

func (s *serviceAddress) ResolveEndpoint(namespace, name string, port int32) (*url.URL, error) {
	if s.host == "" {
		return nil, fmt.Errorf("the service %s/%s cannot be reached from outside the cluster", namespace, name)
	}
	return &url.URL{Scheme: "https", Host: s.host}, nil
}

// UnreachableServiceError is a webhook served by a service in the
// cluster, which this machine cannot reach without being told where.
type UnreachableServiceError struct {
	CRD     string
	Service apiextensionsv1.ServiceReference
}

func (e *UnreachableServiceError) Error() string {
	port := int32(443)
	if e.Service.Port != nil {
		port = *e.Service.Port
	}
	path := ""
	if e.Service.Path != nil {
		path = *e.Service.Path
	}
	return fmt.Sprintf("the conversion webhook of %s is the service %s/%s (port %d), which cannot be reached from outside the cluster: "+
		"forward a local port to it (kubectl port-forward -n %s service/%s 9443:%d) and give --webhook-url https://localhost:9443%s",
		e.CRD, e.Service.Namespace, e.Service.Name, port, e.Service.Namespace, e.Service.Name, port, path)
}
