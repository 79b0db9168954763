#!/usr/bin/env bash
# Writes cmd/kubectl-crd/default.pgo, the CPU profile that go build uses
# to optimise kubectl-crd (profile-guided optimisation: go build reads
# default.pgo in the main package's directory). The profile is recorded
# with --profile=cpu from a build without it, over offline runs: validate
# on 2,000 CronTabs (the work test/bench/validate.sh measures) and on the
# invalid examples, get -o wide, explain and openapi on the examples.
# Usage: hack/pgo.sh [runs]. Run it again when the hot code changes.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -pgo=off -o "$work/kubectl-crd" ./cmd/kubectl-crd
for ((i = 0; i < 2000; i++)); do
	printf -- '---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ct-%d\nspec:\n  cronSpec: "*/5 * * * *"\n  image: img:%d\n  replicas: %d\n  minReplicas: 1\n  maxReplicas: 10\n' "$i" "$i" $((1 + i % 9))
done > "$work/2000.yaml"

n=0
profile() {
	n=$((n + 1))
	KUBECONFIG= "$work/kubectl-crd" "$@" --profile=cpu --profile-output="$work/$n.pprof" > /dev/null 2>&1 || true
}
for ((r = 0; r < runs; r++)); do
	profile validate -f "$work/2000.yaml" --crds examples/crds
	if ((r % 3 == 0)); then
		profile validate -R -f examples/objects --crds examples/crds -o json
		profile get -f examples/objects/valid --crds examples/crds -o wide
		profile explain crontabs.spec --crds examples/crds
		profile openapi --crds examples/crds
	fi
done
go tool pprof -proto "$work"/*.pprof > cmd/kubectl-crd/default.pgo
echo "cmd/kubectl-crd/default.pgo: $n profiles merged"
