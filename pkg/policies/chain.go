package policies

import (
	"errors"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/admission/plugin/policy/mutating"
	"k8s.io/apiserver/pkg/admission/plugin/policy/validating"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	apiserverfeatures "k8s.io/apiserver/pkg/features"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	openapiclient "k8s.io/client-go/openapi"
	"k8s.io/component-base/featuregate"
)

// World is what the policies need of the server beyond themselves.
type World struct {
	// Mapper maps kinds to resources: the kinds of paramKinds and of
	// param objects.
	Mapper meta.RESTMapper
	// Schemas serves the OpenAPI v3 documents (as /openapi/v3 does) of
	// the kinds mutating policies patch: an ApplyConfiguration is merged
	// with the kind's schema.
	Schemas openapiclient.Client
	// Features are the feature gates of the version answered as: the
	// mutating plugin runs where MutatingAdmissionPolicy is on.
	Features featuregate.FeatureGate
	// User is who sends the requests (request.userInfo).
	User user.Info
	// MadeUp, when set, is told the name of each namespace that was not
	// given and was made up from its name alone (see namespaceNamed)
	// for a policy or binding that reads namespaces (a namespaceSelector,
	// or namespaceObject in an expression); it may be called from
	// several goroutines, and more than once for a name.
	MadeUp func(namespace string)
}

// Chain is the mutating and validating policy plugins, configured with a
// Set. Close it when done.
type Chain struct {
	mutating   *mutating.Plugin
	validating *validating.Plugin
	// mutates: the mutating plugin is on (MutatingAdmissionPolicy).
	mutates bool
	user    user.Info
	stop    chan struct{}
	closing sync.Once
	// set and world are what the chain was started with; parts are the
	// chains of one mutating policy each that attribute a mutation.
	set   *Set
	world World
	parts alone
}

// readyWithin bounds the wait for the plugins' informers to list the
// in-memory clients (milliseconds, in practice).
const readyWithin = 30 * time.Second

// Start configures the server's policy plugins with set and starts them.
func Start(set *Set, w World) (*Chain, error) {
	var madeUp func(string)
	if set.readsNamespaces() {
		madeUp = w.MadeUp
	}
	typed, params, err := clients(set, w.Mapper, madeUp)
	if err != nil {
		return nil, err
	}
	schemas := &pathsSeen{Client: w.Schemas, seen: make(chan struct{})}
	kube := &withSchemas{Clientset: typed, schemas: schemas}
	factory := informers.NewSharedInformerFactory(kube, 0)
	c := &Chain{user: w.User, stop: make(chan struct{}), set: set, world: w}
	if c.validating, err = validating.NewPlugin(nil); err != nil {
		return nil, err
	}
	if c.mutating, err = mutating.NewPlugin(nil); err != nil {
		return nil, err
	}
	features := w.Features
	if features == nil {
		features = utilfeature.DefaultFeatureGate
	}
	c.mutating.InspectFeatureGates(features)
	// Without mutating policies, the plugin has nothing to do per request.
	c.mutates = features.Enabled(apiserverfeatures.MutatingAdmissionPolicy) && len(set.Mutating) > 0
	// The informers the plugins read, listed before the plugins start:
	// their sources then find them synced at once, where they would wait
	// for the next poll (a tenth of a second each).
	factory.Core().V1().Namespaces().Informer()
	admissionInformers := factory.Admissionregistration().V1()
	admissionInformers.ValidatingAdmissionPolicies().Informer()
	admissionInformers.ValidatingAdmissionPolicyBindings().Informer()
	if c.mutates {
		admissionInformers.MutatingAdmissionPolicies().Informer()
		admissionInformers.MutatingAdmissionPolicyBindings().Informer()
	}
	factory.Start(c.stop)
	factory.WaitForCacheSync(c.stop)
	plugins := []policyPlugin{c.validating.Plugin, c.mutating.Plugin}
	for _, p := range plugins {
		p.SetExternalKubeClientSet(kube)
		p.SetExternalKubeInformerFactory(factory)
		p.SetDynamicClient(params)
		p.SetRESTMapper(w.Mapper)
		p.SetDrainedNotification(c.stop)
		p.SetUnconditionalAuthorizer(noOpinion{})
		p.SetAPIServerID("kubectl-crd")
	}
	for _, p := range plugins {
		if err := p.ValidateInitialization(); err != nil {
			c.Close()
			return nil, err
		}
	}
	factory.Start(c.stop) // informers the plugins added
	if err := c.ready(schemas, plugins); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// ready waits for what the plugins read before their first answer: their
// informers listed, and (for the mutating plugin) the paths of the
// OpenAPI documents fetched, which it does once when it starts and every
// five seconds after.
func (c *Chain) ready(schemas *pathsSeen, plugins []policyPlugin) error {
	for _, p := range plugins {
		if !p.WaitForReady() {
			return errors.New("the admission policy plugins did not start")
		}
	}
	if !c.mutates {
		return nil
	}
	select {
	case <-schemas.seen:
		return nil
	case <-time.After(readyWithin):
		return errors.New("the mutating admission policy plugin did not read the schemas")
	}
}

// policyPlugin is what Start sets on both plugins.
type policyPlugin interface {
	SetExternalKubeClientSet(kubernetes.Interface)
	SetExternalKubeInformerFactory(informers.SharedInformerFactory)
	SetDynamicClient(dynamic.Interface)
	SetRESTMapper(meta.RESTMapper)
	SetDrainedNotification(<-chan struct{})
	SetUnconditionalAuthorizer(authorizer.UnconditionalAuthorizer)
	SetAPIServerID(string)
	ValidateInitialization() error
	WaitForReady() bool
	Handles(admission.Operation) bool
}

// Close stops the plugins, once however many callers close the chain.
func (c *Chain) Close() {
	if c == nil {
		return
	}
	c.closing.Do(func() {
		c.parts.mu.Lock()
		for _, one := range c.parts.chains {
			one.Close()
		}
		c.parts.mu.Unlock()
		close(c.stop)
	})
}

// Done is closed when the chain is.
func (c *Chain) Done() <-chan struct{} { return c.stop }
