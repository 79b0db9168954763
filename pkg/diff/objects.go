package diff

import (
	"context"
	"fmt"
	"sort"

	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ObjectImpact is what the new CRD does to one stored object on its next
// unchanged write.
type ObjectImpact struct {
	Namespace string                `json:"namespace,omitempty"`
	Name      string                `json:"name"`
	Version   string                `json:"version"`
	Refused   []validate.FieldError `json:"refused"`
	Pruned    []string              `json:"pruned"`
}

// VersionImpact counts the objects checked at one version.
type VersionImpact struct {
	Checked int `json:"checked"`
	Refused int `json:"refused"`
	Pruned  int `json:"pruned"`
}

// ImpactChecker checks the stored objects of one version against a new
// CRD, a page at a time: its validator is built once.
type ImpactChecker struct {
	v       *validate.Validator
	version string
}

// NewImpactChecker makes the checker of the objects read at version.
func NewImpactChecker(newCRD *apiextensionsv1.CustomResourceDefinition, version string) (*ImpactChecker, error) {
	v, err := validate.NewValidator(newCRD, version)
	if err != nil {
		return nil, err
	}
	return &ImpactChecker{v: v, version: version}, nil
}

// Check checks each object, as read at the version while the old CRD is
// in force, as the server would check an unchanged update of it under the
// new CRD (with the ratcheting the server applies to an update): which
// would be refused and why, and which fields the new schema would drop.
// It adds the objects to counts, and returns those the new CRD does not
// leave alone.
func (c *ImpactChecker) Check(ctx context.Context, objs []map[string]any, counts *VersionImpact) []ObjectImpact {
	var out []ObjectImpact
	counts.Checked += len(objs)
	for _, obj := range objs {
		res := c.v.Update(ctx, obj, obj)
		refused := res.Causes()
		if len(refused) == 0 && len(res.Unknown) == 0 {
			continue
		}
		u := unstructured.Unstructured{Object: obj}
		impact := ObjectImpact{Namespace: u.GetNamespace(), Name: u.GetName(), Version: c.version, Refused: refused, Pruned: res.Unknown}
		if impact.Refused == nil {
			impact.Refused = []validate.FieldError{}
		}
		if impact.Pruned == nil {
			impact.Pruned = []string{}
		}
		sort.Strings(impact.Pruned)
		if len(refused) > 0 {
			counts.Refused++
		}
		if len(res.Unknown) > 0 {
			counts.Pruned++
		}
		out = append(out, impact)
	}
	return out
}

// FirstByName keeps the n first impacts by namespace and name: what a
// report shows of however many objects were affected.
func FirstByName(impacts []ObjectImpact, n int) []ObjectImpact {
	sort.SliceStable(impacts, func(i, j int) bool {
		a, b := impacts[i], impacts[j]
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	if len(impacts) > n {
		impacts = impacts[:n:n]
	}
	return impacts
}

// ImpactChanges are the changes that say what the new CRD does to the
// objects of one version: how many it would refuse, how many would lose
// fields.
func ImpactChanges(version string, counts VersionImpact) []Change {
	var out []Change
	if counts.Refused > 0 {
		out = append(out, Change{Version: version, Location: "spec.versions", Check: "object-refused",
			Message: fmt.Sprintf("%d of %d stored objects would be refused on their next unchanged write", counts.Refused, counts.Checked)})
	}
	if counts.Pruned > 0 {
		out = append(out, Change{Version: version, Location: "spec.versions", Check: "field-pruned",
			Message: fmt.Sprintf("%d of %d stored objects would lose fields on their next write", counts.Pruned, counts.Checked)})
	}
	return out
}
