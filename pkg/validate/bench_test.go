package validate

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kubectl-crd/kubectl-crd/pkg/manifest"
)

// BenchmarkDocuments reads and validates 2,000 CronTabs in one stream, as
// kubectl crd validate -f does offline.
func BenchmarkDocuments(b *testing.B) {
	var sb strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&sb, "---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ct-%d\nspec:\n  cronSpec: \"*/5 * * * *\"\n  image: img:%d\n  replicas: %d\n  minReplicas: 1\n  maxReplicas: 10\n", i, i, 1+i%9)
	}
	data := []byte(sb.String())
	kinds := cronTabs(b)
	b.ResetTimer()
	for range b.N {
		r, err := documents(context.Background(), manifest.InputOf("bench.yaml", data), kinds, Options{})
		if err != nil || r.Summary.Valid+r.Summary.Invalid != 2000 {
			b.Fatalf("summary %+v", r.Summary)
		}
	}
}
