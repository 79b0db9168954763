// Package report writes the machine outputs every verb shares: the JSON
// envelope, SARIF 2.1.0 logs, GitHub Actions annotations and JUnit XML.
// A verb turns its own findings into these types; how each format is
// spelled, and that every report says which Kubernetes version answered,
// is decided here once.
package report

import (
	"encoding/json"
	"io"
	"strconv"
)

// Tool is the name every report gives the tool; InformationURI is where
// it is documented.
const (
	Tool           = "kubectl-crd"
	InformationURI = "https://github.com/kubectl-crd/kubectl-crd"
)

// WriteJSON writes v as every verb's -o json does: indented by two
// spaces, one trailing newline.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Plural is "1 error" or "2 errors": n with the noun in the number n
// asks for.
func Plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
