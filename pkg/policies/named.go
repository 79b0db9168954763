package policies

import (
	"regexp"
	"sync"
)

// named matches the policy and binding in the server's texts of a
// denial ("ValidatingAdmissionPolicy 'p' with binding 'b' denied
// request: ...", "policy 'p' with binding 'b' denied request: ..." for a
// mutating policy) and of a Warn action's warning ("Validation failed for
// ValidatingAdmissionPolicy 'p' with binding 'b': ...").
var named = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|ValidatingAdmissionPolicy |policy )'([^']*)'(?: with binding '([^']*)')?(?: denied request|:)|^policy "([^"]*)" denied request`)
})

// Named gives the policy and binding a message of admission names ("" and
// "" when it names none).
func Named(message string) (policy, binding string) {
	m := named().FindStringSubmatch(message)
	switch {
	case m == nil:
		return "", ""
	case m[3] != "":
		return m[3], ""
	}
	return m[1], m[2]
}
