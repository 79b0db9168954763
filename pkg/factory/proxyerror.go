package factory

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/rest"
)

// nameTheProxy makes a request that fails on its way through a proxy say
// so: Go's transport reports a proxy's refusal with its status text alone
// ("Forbidden"), and kubectl reads a proxy's refused connection as the
// server's ("The connection to the server ... was refused").
func nameTheProxy(c *rest.Config) *rest.Config {
	proxy := c.Proxy
	if proxy == nil {
		// What client-go's transport uses without a proxy-url.
		proxy = utilnet.NewProxierWithNoProxyCIDR(http.ProxyFromEnvironment)
	}
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper { return &proxyErrors{rt: rt, proxy: proxy} })
	return c
}

type proxyErrors struct {
	rt    http.RoundTripper
	proxy func(*http.Request) (*url.URL, error)
}

func (p *proxyErrors) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := p.rt.RoundTrip(req)
	if err == nil {
		return resp, nil
	}
	if u, perr := p.proxy(req); perr == nil && u != nil {
		return nil, &ProxyError{Proxy: u.Redacted(), Err: err}
	}
	return resp, err
}

func (p *proxyErrors) WrappedRoundTripper() http.RoundTripper { return p.rt }

// CancelRequest passes on the cancel of a request whose client timed out
// to the transport beneath, where it has one (a request's context ends it
// anyway; client-go's discovery cache logs an error for a transport
// without it).
func (p *proxyErrors) CancelRequest(req *http.Request) {
	if c, ok := p.rt.(interface{ CancelRequest(*http.Request) }); ok {
		c.CancelRequest(req)
	}
}

// ProxyError is a request that failed on its way through a proxy.
type ProxyError struct {
	Proxy string // its URL, without credentials
	Err   error
}

func (e *ProxyError) Error() string {
	return fmt.Sprintf("through the proxy %s: %v", e.Proxy, e.Err)
}

// Unwrap gives the cause only where it is the request's end (a timeout,
// a cancel), for the callers that stop on those; other causes (a refused
// connection) are the proxy's, and must not read as the server's.
func (e *ProxyError) Unwrap() error {
	if errors.Is(e.Err, context.Canceled) || errors.Is(e.Err, context.DeadlineExceeded) {
		return e.Err
	}
	return nil
}
