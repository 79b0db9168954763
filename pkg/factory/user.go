package factory

import (
	"github.com/kubectl-crd/kubectl-crd/pkg/policies"
	"k8s.io/apiserver/pkg/authentication/user"
)

// User is who requests are sent as where admission reads it: the user
// --as names, with --as-group's groups (and system:authenticated, which
// the server adds to every authenticated user), else policies.User().
func (f *Factory) User() user.Info {
	name := ""
	if f.ConfigFlags.Impersonate != nil {
		name = *f.ConfigFlags.Impersonate
	}
	if name == "" {
		return policies.User()
	}
	u := &user.DefaultInfo{Name: name}
	if f.ConfigFlags.ImpersonateGroup != nil {
		u.Groups = append(u.Groups, *f.ConfigFlags.ImpersonateGroup...)
	}
	if f.ConfigFlags.ImpersonateUID != nil {
		u.UID = *f.ConfigFlags.ImpersonateUID
	}
	u.Groups = append(u.Groups, user.AllAuthenticated)
	return u
}
