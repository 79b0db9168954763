package builtin

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/managedfields"
)

// RequestManagedFields does to a written object's managedFields what the
// server's field manager does before the strategy checks it: entries it
// cannot decode (an operation other than Apply or Update, a fieldsType
// other than FieldsV1) are no error, the live object's take their place
// (none on create, or when the live ones cannot be decoded either), as
// apimachinery's field manager decides between the two. Objects copied
// from `kubectl get -o yaml` carry managedFields.
func RequestManagedFields(obj, live metav1.Object) {
	if managedfields.ValidateManagedFields(obj.GetManagedFields()) == nil {
		return
	}
	var kept []metav1.ManagedFieldsEntry
	if live != nil && managedfields.ValidateManagedFields(live.GetManagedFields()) == nil {
		kept = live.GetManagedFields()
	}
	obj.SetManagedFields(kept)
}
