package tabletransport

import (
	"net/http"

	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/rest"
)

// Getter is the kubeconfig's client getter with every client that
// kubectl's get makes from it answering Table requests for custom
// resources on the client (discovery goes to the server as it is).
type Getter struct {
	*genericclioptions.ConfigFlags
	Tables *Tables
}

// ToRESTConfig is the kubeconfig's client config with Transport under it.
func (g *Getter) ToRESTConfig() (*rest.Config, error) {
	c, err := g.ConfigFlags.ToRESTConfig()
	if err != nil {
		return nil, err
	}
	prefix := ""
	if base, _, err := rest.DefaultServerUrlFor(c); err == nil {
		prefix = base.Path
	}
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return &Transport{Next: rt, Tables: g.Tables, Prefix: prefix}
	})
	return c, nil
}
