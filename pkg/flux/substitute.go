package flux

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/fluxcd/pkg/envsubst"
	fluxkustomize "github.com/fluxcd/pkg/kustomize"
	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/kustomize/api/resource"
)

// variables are a Kustomization's postBuild variables: substituteFrom's
// ConfigMaps and Secrets, then substitute, as Flux loads them.
type variables struct {
	client objectsClient
	values map[string]string
}

// loadVariables loads ks's variables with Flux's own loader, its
// ConfigMaps and Secrets read from the objects rendered so far (the
// repository's), else the cluster's.
func (r *renderer) loadVariables(ks *fluxObject) (*variables, error) {
	c := objectsClient{r: r}
	values, err := fluxkustomize.LoadVariables(r.ctx, c, *ks.obj)
	if err != nil {
		return nil, err
	}
	inline, _, _ := unstructured.NestedStringMap(ks.obj.Object, "spec", "postBuild", "substitute")
	for k, v := range inline {
		values[k] = strings.ReplaceAll(v, "\n", "")
	}
	return &variables{client: c, values: values}, nil
}

// substitute substitutes ks's variables in res with Flux's own
// substitution, and warns of each variable it substitutes with nothing
// (kustomize-controller's default, not strict: the object then has an
// empty value where the user meant one), at the place in the file that
// names it.
func (r *renderer) substitute(ks *fluxObject, vars *variables, res *resource.Resource, o rendered) ([]*manifest.Error, error) {
	var warnings []*manifest.Error
	// substituteStrategy Always substitutes with no variables defined
	// (for defaults); the default, WithVariables, only with some.
	always := ks.str("spec", "postBuild", "substituteStrategy") == "Always"
	if (len(vars.values) > 0 || always) && !disabled(res) {
		text, err := res.AsYAML()
		if err != nil {
			return nil, err
		}
		for _, name := range unset(string(text), vars.values) {
			line, column := o.line, o.column
			if n := scalarNaming(o.node, "${"+name); n != nil {
				line, column = n.Line, n.Column
			}
			warnings = append(warnings, &manifest.Error{File: o.file, Line: line, Column: column, Type: "SubstitutionUnset",
				Msg: fmt.Sprintf("${%s} is substituted with nothing: no substitute or substituteFrom of %s defines it (Flux's default; its strict mode would fail)", name, ks.via())})
		}
	}
	_, err := fluxkustomize.SubstituteVariables(r.ctx, vars.client, *ks.obj, res,
		fluxkustomize.SubstituteWithStrict(false), fluxkustomize.SubstituteWithAlways(always))
	return warnings, err
}

// disabled tells whether res asks not to be substituted.
func disabled(res *resource.Resource) bool {
	const key, off = "kustomize.toolkit.fluxcd.io/substitute", "disabled"
	return res.GetLabels()[key] == off || res.GetAnnotations()[key] == off
}

// unset are the variables text uses that vars does not define and that
// have no default: Flux's evaluation in strict mode names one at a time.
func unset(text string, vars map[string]string) []string {
	const notSet = "variable not set (strict mode): "
	known := maps.Clone(vars)
	var out []string
	for range 1000 {
		_, err := envsubst.Eval(text, func(s string) (string, bool) { v, ok := known[s]; return v, ok })
		if err == nil {
			break
		}
		_, quoted, ok := strings.Cut(err.Error(), notSet)
		name, uerr := strconv.Unquote(quoted)
		if !ok || uerr != nil {
			break
		}
		out = append(out, name)
		known[name] = ""
	}
	return out
}

// scalarNaming is the first scalar under n whose value holds s.
func scalarNaming(n *yaml.Node, s string) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, s) {
		return n
	}
	for _, c := range n.Content {
		if found := scalarNaming(c, s); found != nil {
			return found
		}
	}
	return nil
}

// objectsClient is the client Flux's loaders read ConfigMaps and Secrets
// with: from the objects rendered so far, else the cluster. Flux's
// loaders call Get alone; the embedded interface is nil, so any other
// call would fail loudly rather than answer wrongly.
type objectsClient struct {
	client.Client
	r *renderer
}

func (c objectsClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, _ ...client.GetOption) error {
	var kind, resource string
	switch obj.(type) {
	case *corev1.ConfigMap:
		kind, resource = "ConfigMap", "configmaps"
	case *corev1.Secret:
		kind, resource = "Secret", "secrets"
	default:
		return fmt.Errorf("%T is not read", obj)
	}
	u, err := c.r.lookup(ctx, kind, key.Namespace, key.Name)
	if err != nil {
		return err
	}
	if u == nil {
		return apierrors.NewNotFound(schema.GroupResource{Resource: resource}, key.Name)
	}
	if kind == "Secret" {
		u = withStringData(u)
	}
	return runtime.DefaultUnstructuredConverter.FromUnstructured(u, obj)
}

// lookup finds a ConfigMap or Secret among the objects rendered, the
// last one rendered winning as the last applied would; else in the
// cluster when online (nil, nil: there is none).
func (r *renderer) lookup(ctx context.Context, kind, namespace, name string) (map[string]any, error) {
	if o := r.rendered(kind, namespace, name); o != nil {
		return o.obj.Object, nil
	}
	if r.o.Cluster == nil {
		return nil, nil
	}
	// Flux's substitution loads the variables again for each object:
	// the cluster is asked once.
	key := kind + "/" + namespace + "/" + name
	if got, ok := r.fromCluster[key]; ok {
		return got.obj, got.err
	}
	u, err := r.o.Cluster(ctx, kind, namespace, name)
	if apierrors.IsNotFound(err) {
		u, err = nil, nil
	}
	r.fromCluster[key] = clusterAnswer{u, err}
	return u, err
}

// clusterAnswer is what the cluster answered for a ConfigMap or Secret.
type clusterAnswer struct {
	obj map[string]any
	err error
}

// rendered is the ConfigMap or Secret rendered last of that name (nil:
// none).
func (r *renderer) rendered(kind, namespace, name string) *rendered {
	for i := len(r.objects) - 1; i >= 0; i-- {
		o := r.objects[i].obj
		ns := o.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		if o.GetAPIVersion() == "v1" && o.GetKind() == kind && ns == namespace && o.GetName() == name {
			return &r.objects[i]
		}
	}
	return nil
}

// withStringData is a Secret as the server stores it: its stringData in
// its data.
func withStringData(u map[string]any) map[string]any {
	sd, _, _ := unstructured.NestedStringMap(u, "stringData")
	if len(sd) == 0 {
		return u
	}
	u = maps.Clone(u)
	old, _ := u["data"].(map[string]any)
	data := maps.Clone(old)
	if data == nil {
		data = map[string]any{}
	}
	for k, v := range sd {
		data[k] = base64.StdEncoding.EncodeToString([]byte(v))
	}
	u["data"] = data
	delete(u, "stringData")
	return u
}
