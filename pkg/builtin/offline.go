package builtin

import (
	"errors"
	"net/http"

	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
)

// errNoCluster answers a check that needs to read the cluster when there
// is none.
var errNoCluster = errors.New("no cluster to read it from (offline)")

// offlineNamespaces is a namespace client for no cluster: every request
// fails with errNoCluster.
func offlineNamespaces() (corev1client.NamespaceInterface, error) {
	c, err := corev1client.NewForConfigAndClient(&rest.Config{Host: "http://offline.invalid"}, &http.Client{Transport: failing{}})
	if err != nil {
		return nil, err
	}
	return c.Namespaces(), nil
}

type failing struct{}

func (failing) RoundTrip(*http.Request) (*http.Response, error) { return nil, errNoCluster }
