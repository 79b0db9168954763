package catalog

import (
	"context"
	"fmt"
	"strings"
)

// QualifyArgs resolves the TYPE parts of get's arguments (TYPE [NAME...],
// or TYPE/NAME...)
// and writes each as the fully qualified plural.version.group list, so that
// kubectl's get sees exactly the custom resources the catalog chose. A TYPE
// that names only empty categories comes back as an empty list.
func (c *Catalog) QualifyArgs(ctx context.Context, args []string) ([]string, []Resource, error) {
	if len(args) == 0 {
		return args, nil, nil
	}
	var all []Resource
	qualify := func(typeArg string) (string, error) {
		res, err := c.Resolve(ctx, typeArg)
		if err != nil {
			return "", err
		}
		all = append(all, res...)
		names := make([]string, len(res))
		for i, r := range res {
			gvr := r.Mapping.Resource
			names[i] = gvr.Resource + "." + gvr.Version + "." + gvr.Group
		}
		return strings.Join(names, ","), nil
	}
	out := make([]string, 0, len(args))
	if strings.Contains(strings.Join(args, " "), "/") {
		for _, a := range args {
			typ, name, ok := strings.Cut(a, "/")
			if !ok {
				return nil, nil, fmt.Errorf("there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl crd get resource/<resource_name>' instead of 'kubectl crd get resource resource/<resource_name>'")
			}
			q, err := qualify(typ)
			if err != nil {
				return nil, nil, err
			}
			if strings.Contains(q, ",") || q == "" {
				return nil, nil, fmt.Errorf("%q must name exactly one resource type in TYPE/NAME", typ)
			}
			out = append(out, q+"/"+name)
		}
		return out, all, nil
	}
	q, err := qualify(args[0])
	if err != nil {
		return nil, nil, err
	}
	if q == "" {
		return args, nil, nil
	}
	return append(append(out, q), args[1:]...), all, nil
}
