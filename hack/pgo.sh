#!/usr/bin/env bash
# Writes cmd/kubectl-crd/default.pgo, the profile go build would use for a
# profile-guided build of kubectl crd (go build, go install and make dist
# pick it up by default): CPU profiles of the realistic workloads, merged.
#
# The repository does not keep one: measured on 2 cores (Go 1.26,
# test/bench's inputs, 5 runs each), a profile-guided build validated
# 20,000 documents 2.6% faster (4.16 s to 4.05 s) and 2,000 documents and
# one object no faster, while building it from a cold cache took 7 min 10 s
# (every dependency compiled again with the profile), which each CI run and
# each build of the six release archives would pay. Run this script and
# test/bench/validate.sh again when that trade may have changed.
#
# The workloads are those of test/bench, on the corpus (KUBECTL_CRD_CORPUS,
# or ../shared/corpus beside the repository): validate of 2,000 and 20,000
# of the projects' documents and of one object against every corpus CRD;
# get -o wide of 3,000 CronTabs (offline); explain -o detailed
# --recursive and openapi -o jsonschema over every corpus CRD. The binary
# profiled is built without a profile, so that the result does not depend
# on the one it replaces.
#
# Usage: hack/pgo.sh. Then measure with test/bench/validate.sh before
# committing the new profile.
set -euo pipefail
cd "$(dirname "$0")/.."
. test/bench/lib.sh
bench_setup 1

CGO_ENABLED=0 go build -pgo=off -trimpath -o "$work/kubectl-crd" ./cmd/kubectl-crd
kc=$work/kubectl-crd
go run ./test/bench/corpusinput -corpus "$corpus" -out "$work/real" -kubectl-crd "$kc" -n 2000 -files 200 > /dev/null
go run ./test/bench/corpusinput -corpus "$corpus" -out "$work/real20k" -kubectl-crd "$kc" -n 20000 -files 1 > /dev/null
crds=$work/real/crds
for ((i = 0; i < 3000; i++)); do
	printf -- '---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ct-%d\nspec:\n  cronSpec: "*/5 * * * *"\n  image: img:%d\n  replicas: %d\n' "$i" "$i" $((1 + i % 9))
done > "$work/crontabs.yaml"
sleep 2 # files changed in the last two seconds are not indexed
"$kc" validate -f "$work/real/one.yaml" --crds "$crds" > /dev/null 2>&1 || true

n=0
profile() {
	n=$((n + 1))
	"$kc" "$@" --profile cpu --profile-output "$work/$n.pprof" > /dev/null 2>&1 || true
	[ -s "$work/$n.pprof" ] || { echo "no profile from: kubectl crd $*" >&2; exit 1; }
}
profile validate -f "$work/real/stream.yaml" --crds "$crds"
profile validate -f "$work/real20k/stream.yaml" --crds "$crds"
profile validate -f "$work/real/one.yaml" --crds "$crds"
profile get -f "$work/crontabs.yaml" --crds examples/crds -o wide
profile openapi -o jsonschema --output-dir "$work/schemas" --crds "$crds"
# explain: a recursive detailed page of every tenth corpus kind.
"$kc" list --crds "$crds" -o name 2>/dev/null | sed 's|.*/||' | awk 'NR % 10 == 1' > "$work/types"
while read -r t; do
	profile explain "$t" --recursive -o detailed --crds "$crds"
done < "$work/types"

go tool pprof -proto "$work"/*.pprof > cmd/kubectl-crd/default.pgo
echo "cmd/kubectl-crd/default.pgo: $(du -k cmd/kubectl-crd/default.pgo | cut -f1) KiB from $n profiles"
