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

// BenchmarkReadObject reads one object as kubectl does and directly (the
// two ways asKubectlReads may take).
func BenchmarkReadObject(b *testing.B) {
	text := []byte(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels: {app: web, tier: frontend}
  annotations:
    example.com/owner: "team-a"
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: registry.example.com/web:1.2.3
        args: ["--port=8080", "--verbose"]
        ports:
        - {containerPort: 8080, name: http, protocol: TCP}
        resources:
          limits: {cpu: 500m, memory: 256Mi}
        readinessProbe:
          httpGet: {path: /healthz, port: 8080}
          periodSeconds: 10
`)
	for name, read := range map[string]func([]byte) ([]byte, map[string]any){"kubectl": kubectlReads, "direct": readDirect} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, obj := read(text); obj == nil {
					b.Fatal("not read")
				}
			}
		})
	}
}
