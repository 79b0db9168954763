#!/usr/bin/env bash
# Validates 2,000 CronTabs in one file, offline, with kubectl crd validate
# and with kubectl-validate v0.0.4 (installed from the Go module proxy into
# a temporary directory), alternating the two, and prints both medians,
# their ratio and peak memory; then 20,000 CronTabs with kubectl crd alone.
# Usage: test/bench/validate.sh [runs]. Needs GNU time (Debian: apt-get
# install time).
set -euo pipefail
[ -x /usr/bin/time ] || { echo "validate.sh needs GNU time at /usr/bin/time" >&2; exit 2; }
cd "$(dirname "$0")/../.."
runs=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

go build -o "$work/kubectl-crd" ./cmd/kubectl-crd
GOBIN="$work" go install sigs.k8s.io/kubectl-validate@v0.0.4
mkdir -p "$work/crds"
cp examples/crds/crontab.yaml "$work/crds/"

objects() {
	for ((i = 0; i < $1; i++)); do
		printf -- '---\napiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: ct-%d\nspec:\n  cronSpec: "*/5 * * * *"\n  image: img:%d\n  replicas: %d\n  minReplicas: 1\n  maxReplicas: 10\n' "$i" "$i" $((1 + i % 9))
	done
}
objects 2000 > "$work/2000.yaml"
objects 20000 > "$work/20000.yaml"

# seconds CMD...: the wall time of one run, to the millisecond, by the
# shell's own clock (no process but the command itself is timed); the
# command's exit status is not the point: invalid objects make it 1
seconds() {
	local TIMEFORMAT=%3R
	{ time KUBECONFIG= "$@" > /dev/null 2>&1 || true; } 2>&1
}
# rss CMD...: the peak resident memory of one run, in KiB (a run of its own)
rss() {
	/usr/bin/time -o "$work/time" -f '%M' env KUBECONFIG= "$@" > /dev/null 2>&1 || true
	tail -1 "$work/time"
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

plugin=() kv=()
for ((r = 0; r < runs; r++)); do
	plugin+=("$(seconds "$work/kubectl-crd" validate -f "$work/2000.yaml" --crds "$work/crds")")
	kv+=("$(seconds "$work/kubectl-validate" "$work/2000.yaml" --local-crds "$work/crds" --version 1.30)")
done
prss=$(rss "$work/kubectl-crd" validate -f "$work/2000.yaml" --crds "$work/crds")
krss=$(rss "$work/kubectl-validate" "$work/2000.yaml" --local-crds "$work/crds" --version 1.30)
pm=$(printf '%s\n' "${plugin[@]}" | median)
km=$(printf '%s\n' "${kv[@]}" | median)
echo "2000 objects: kubectl-crd ${pm}s (max RSS $((prss / 1024)) MiB), kubectl-validate ${km}s (max RSS $((krss / 1024)) MiB)"
awk -v p="$pm" -v k="$km" 'BEGIN { printf "throughput: kubectl-crd is %.1fx kubectl-validate\n", k / p }'
t=$(seconds "$work/kubectl-crd" validate -f "$work/20000.yaml" --crds "$work/crds")
m=$(rss "$work/kubectl-crd" validate -f "$work/20000.yaml" --crds "$work/crds")
echo "20000 objects: kubectl-crd ${t}s (max RSS $((m / 1024)) MiB)"
