// Package fast is the one switch of kubectl crd's second paths for speed:
// each answers as the slower path it stands in front of, which a
// differential test and a fuzz target show, and KUBECTL_CRD_FAST=0 turns
// them all off (for comparison, and as a way out should one ever differ).
// The paths: the schema proof before the server's schema validation
// (pkg/schemaproof) and the direct reading of a YAML object
// (pkg/manifest). kubectl crd version says which the process takes.
package fast

import (
	"os"
	"sync"
)

// Enabled reports whether the second paths are taken: unless
// KUBECTL_CRD_FAST=0. The environment is read once, when first asked, and
// holds for the whole process (as kubectl reads KUBECONFIG once): every
// document of a run is read and checked the same way.
var Enabled = sync.OnceValue(func() bool { return os.Getenv("KUBECTL_CRD_FAST") != "0" })
