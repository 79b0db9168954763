package manifest

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRead reads streams of 2,000 and 20,000 small documents: the
// time per document should not grow with the stream.
func BenchmarkRead(b *testing.B) {
	for _, n := range []int{2000, 20000} {
		var sb strings.Builder
		for i := 0; i < n; i++ {
			fmt.Fprintf(&sb, "---\napiVersion: v1\nkind: X\nmetadata:\n  name: x-%d\nspec:\n  replicas: %d\n", i, i)
		}
		data := []byte(sb.String())
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Read("f", data); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/doc")
		})
	}
}
