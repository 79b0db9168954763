package harness

import (
	"errors"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/kubectl-crd/kubectl-crd/pkg/validate"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Causes lists the errors of a validate result as "FIELD TYPE", or
// "BadRequest: MESSAGE" for a body that cannot be decoded, "InternalError"
// for a request the server fails on; when there are
// unknown fields, only those, as "unknown FIELD" (the server's strict
// decoding stops there). Sorted.
func Causes(res validate.ObjectResult) []string {
	var all, unknown []string
	for _, p := range res.Errors {
		switch p.Type {
		case "FieldValueUnknown":
			unknown = append(unknown, "unknown "+p.Field)
		case string(metav1.StatusReasonBadRequest):
			all = append(all, "BadRequest: "+p.Message)
		case string(metav1.StatusReasonInternalError):
			all = append(all, "InternalError")
		default:
			all = append(all, p.Field+" "+p.Type)
		}
	}
	if unknown != nil {
		all = unknown
	}
	sort.Strings(all)
	return all
}

var (
	// The field is quoted as strconv.Quote does it.
	unknownField = regexp.MustCompile(`unknown field ("(?:[^"\\]|\\.)*")`)
	// kubectl's apply puts the source before the server's message.
	patchingSource = regexp.MustCompile(`^error when patching "[^"]*": `)
)

// ServerCauses lists the causes of a server's refusal as Causes lists
// validate's: nil when err is nil.
func ServerCauses(err error) []string {
	var se *apierrors.StatusError
	var out []string
	switch {
	case err == nil:
		return nil
	case apierrors.IsInternalError(err):
		// Where the server's code panicked, the message and causes are
		// client-go's, made up for a response with no status; where
		// kubectl's did, the DryRunner's.
		out = append(out, "InternalError")
	case !errors.As(err, &se):
		out = append(out, "error "+err.Error())
	case se.ErrStatus.Details != nil && len(se.ErrStatus.Details.Causes) > 0:
		for _, c := range se.ErrStatus.Details.Causes {
			if strings.Contains(c.Message, "unknown field") {
				out = append(out, "unknown "+strings.TrimPrefix(c.Field, "."))
				continue
			}
			out = append(out, c.Field+" "+string(c.Type))
		}
	case apierrors.IsBadRequest(err) && unknownField.MatchString(err.Error()):
		for _, m := range unknownField.FindAllStringSubmatch(err.Error(), -1) {
			field, uerr := strconv.Unquote(m[1])
			if uerr != nil {
				field = m[1]
			}
			out = append(out, "unknown "+field)
		}
	case apierrors.IsBadRequest(err):
		out = append(out, "BadRequest: "+patchingSource.ReplaceAllString(se.ErrStatus.Message, ""))
	default:
		out = append(out, "error "+err.Error())
	}
	sort.Strings(out)
	return out
}
